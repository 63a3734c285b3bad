-- A row with its line has no FTS key (or more than one); or an FTS key of an audited session has no entry row.
SELECT rows.entry_key, count(keys.fts_rowid) AS fts_keys, 'row-without-key' AS problem
FROM audited_rows AS rows
LEFT JOIN proj_fts_keys AS keys USING (entry_key)
WHERE rows.line_no IS NOT NULL
GROUP BY rows.entry_key
HAVING count(keys.fts_rowid) <> 1
UNION ALL
SELECT keys.entry_key, 1, 'key-without-row'
FROM proj_fts_keys AS keys
WHERE split_part(keys.entry_key, ':', 1) IN (SELECT session_id FROM audited_sessions)
  AND keys.entry_key NOT IN (SELECT entry_key FROM proj_entries WHERE entry_key IS NOT NULL)
ORDER BY 1
