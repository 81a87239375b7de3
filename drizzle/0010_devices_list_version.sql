-- GET /device's cached body follows the devices table the way GET /user's follows users (0008).
INSERT INTO "list_versions" ("name", "version") VALUES ('devices', 0);
--> statement-breakpoint
CREATE TRIGGER "devices_list_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "devices" FOR EACH STATEMENT EXECUTE FUNCTION "bump_list_version"('devices');
