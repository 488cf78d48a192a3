-- 0010_reserved: a placeholder that keeps the migration numbers without gaps on the membership
-- branch (the migrator refuses gaps). Number 0010 belongs to the mail-flows slice: when that slice
-- brings its own 0010, drop this file in the merge. Applied by storage/sqlite/migrator.cc.
CREATE TABLE IF NOT EXISTS reserved_0010 (x INTEGER) STRICT;
DROP TABLE reserved_0010;
