-- A row's locator is missing or is not [start, end) of its line; or a locator of an audited
-- session has no entry row.
SELECT rows.entry_key, rows.session_file, rows.line_no, rows.line_start, rows.line_end,
       locations.start_offset AS located_start, locations.end_offset AS located_end,
       CASE WHEN locations.entry_key IS NULL THEN 'missing' ELSE 'differs' END AS problem
FROM audited_rows AS rows
LEFT JOIN proj_locations AS locations USING (entry_key)
WHERE rows.line_no IS NOT NULL
  AND (locations.entry_key IS NULL OR locations.start_offset IS DISTINCT FROM rows.line_start
       OR locations.end_offset IS DISTINCT FROM rows.line_end)
UNION ALL
SELECT locations.entry_key, NULL, NULL, NULL, NULL, locations.start_offset, locations.end_offset, 'no-entry-row'
FROM proj_locations AS locations
WHERE split_part(locations.entry_key, ':', 1) IN (SELECT session_id FROM audited_sessions)
  AND locations.entry_key NOT IN (SELECT entry_key FROM proj_entries WHERE entry_key IS NOT NULL)
ORDER BY 1
