ALTER TABLE "users_list_json" ADD COLUMN "stamp" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- custom SQL (keep when regenerating)
-- Each entry records the users list version it was written at, so a console process holding
-- the full list as of version V re-reads only the entries stamped above V (lib/users/list-cache.ts).
-- The row lock on the version row is taken before stamping: two transactions changing users
-- serialise on it (the statement trigger that bumps the version already did), so an entry is
-- stamped with the version its own transaction commits, never with one a concurrent transaction
-- committed first. A stamp one above the final version (a statement whose bump trigger fired
-- before this one) only makes a reader fetch the entry once more.
CREATE OR REPLACE FUNCTION "refresh_users_list_json"(ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  next_version integer;
BEGIN
  SELECT version + 1 INTO next_version FROM list_versions WHERE name = 'users' FOR UPDATE;
  INSERT INTO users_list_json (user_id, body, stamp)
  SELECT v.id, row_to_json(v)::text, coalesce(next_version, 0) FROM user_info v WHERE v.id = ANY(ids)
  ON CONFLICT (user_id) DO UPDATE SET body = excluded.body, stamp = excluded.stamp;
END $$;
