-- A temporary file of a durable write (<name>.<uuid>.tmp, contract §6.5) left in a session or
-- operations folder.
SELECT folder, name
FROM audit_folder_entries
WHERE regexp_full_match(name, '.+\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp')
ORDER BY folder, name
