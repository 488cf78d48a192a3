-- 0010: number reserved for the mail-flows slice of issue 11. This placeholder exists only so that
-- 0012_attendance applies on a branch without it (the migrator refuses gaps); drop it when the
-- real 0010 is merged.
SELECT 1;
