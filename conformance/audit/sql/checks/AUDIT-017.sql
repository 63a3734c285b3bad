-- A projection or journal file (or the operations folder) that its group or others can reach.
SELECT path, role, printf('%04o', mode) AS mode
FROM audit_files
WHERE mode IS NOT NULL AND (mode & 63) <> 0
ORDER BY path
