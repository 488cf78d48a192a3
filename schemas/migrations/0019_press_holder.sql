-- @sqlite
-- 0019_press_holder: whether a position's new player (a takeover or the GM's replace) reads the
-- position's private press from before they took it over (storage/press_store.h
-- PressOptions::new_holder_reads_earlier). Off by default: server/app/press.h mailbox() shows a
-- new player only press to everyone from before their start.
--
-- Applied by storage/sqlite/migrator.cc inside one transaction; do not add BEGIN/COMMIT here.
ALTER TABLE press_options ADD COLUMN new_holder_reads_earlier INTEGER NOT NULL DEFAULT 0
  CHECK (new_holder_reads_earlier IN (0, 1));
-- @postgres
-- 0009_press_holder: as 0019_press_holder.sql, whether a position's new player reads
-- the position's private press from before they took it over (off by default).
ALTER TABLE press_options ADD COLUMN new_holder_reads_earlier BIGINT NOT NULL DEFAULT 0
  CHECK (new_holder_reads_earlier IN (0, 1));
