ALTER TABLE "settings" ADD COLUMN "enrollment_vpn_step_optional" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "enrollment_welcome_message" text;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "enrollment_welcome_email" text;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "enrollment_welcome_email_subject" text;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "enrollment_use_welcome_message_as_email" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_url" text;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_bind_username" text DEFAULT 'cn=admin,dc=example,dc=org';--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_bind_password_enc" text;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_group_member_attr" text DEFAULT 'uniqueMember';--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_group_obj_class" text DEFAULT 'groupOfUniqueNames';--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_group_search_base" text DEFAULT 'ou=groups,dc=example,dc=org';--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_groupname_attr" text DEFAULT 'cn';--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_member_attr" text DEFAULT 'memberOf';--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_user_obj_class" text DEFAULT 'inetOrgPerson';--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_user_auxiliary_obj_classes" text[] DEFAULT ARRAY['simpleSecurityObject', 'sambaSamAccount']::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_user_search_base" text DEFAULT 'ou=users,dc=example,dc=org';--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_username_attr" text DEFAULT 'cn';--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_sync_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_is_authoritative" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_use_starttls" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_tls_verify_cert" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_sync_interval" integer DEFAULT 300 NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_uses_ad" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_user_rdn_attr" text;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "ldap_sync_groups" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "openid_create_account" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "openid_username_handling" text DEFAULT 'RemoveForbidden' NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "license" text;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "admin_device_management" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "client_traffic_policy" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "only_client_activation" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- custom SQL (keep when regenerating)
-- Activity-log event names follow defguard 1.6 (scripts/activity-event-renames.json). One
-- statement with a CASE, so a chain such as password_reset_requested → password_reset and
-- password_reset → password_reset_completed maps every row exactly once.
UPDATE "activity_log" SET "event" = CASE "event"
  WHEN 'password_reset_requested' THEN 'password_reset'
  WHEN 'password_reset' THEN 'password_reset_completed'
  WHEN 'mfa_login_failed' THEN 'user_mfa_login_failed'
  WHEN 'groups_assigned' THEN 'groups_bulk_assigned'
  WHEN 'location_added' THEN 'vpn_location_added'
  WHEN 'location_modified' THEN 'vpn_location_modified'
  WHEN 'location_removed' THEN 'vpn_location_removed'
  WHEN 'location_devices_imported' THEN 'vpn_location_devices_imported'
  WHEN 'settings_changed' THEN 'settings_updated'
  ELSE "event" END
WHERE "event" IN ('password_reset_requested', 'password_reset', 'mfa_login_failed', 'groups_assigned', 'location_added',
  'location_modified', 'location_removed', 'location_devices_imported', 'settings_changed');
--> statement-breakpoint
-- A sign-in completed by a second factor was recorded as user_login with this description.
UPDATE "activity_log" SET "event" = 'user_mfa_login' WHERE "event" = 'user_login' AND "description" LIKE 'Second factor: %';
--> statement-breakpoint
-- MFA turned off by an admin for someone else.
UPDATE "activity_log" SET "event" = 'user_mfa_disabled' WHERE "event" = 'mfa_disabled' AND "description" LIKE 'MFA disabled for %';
