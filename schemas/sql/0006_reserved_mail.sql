-- Placeholder for migration 0006, reserved for the mail helper on another branch.
-- The migrator needs versions 1, 2, 3, ... without gaps; when the branches are merged this file
-- is replaced by the real one (delete it then: two files with one number are refused).
SELECT 1;
