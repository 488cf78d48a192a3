-- PLACEHOLDER on branch wip/limit only: migration numbers are pre-assigned to parallel branches
-- (0005 auth, 0006 mail, 0007 integrity, 0008 limiter) and the migrator wants 1, 2, 3, ...
-- without gaps. Delete this file when the mail branch's real 0006 is merged.
SELECT 1;
