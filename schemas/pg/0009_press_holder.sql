-- 0009_press_holder: as schemas/sql/0019_press_holder.sql, whether a position's new player reads
-- the position's private press from before they took it over (off by default).
ALTER TABLE press_options ADD COLUMN new_holder_reads_earlier BIGINT NOT NULL DEFAULT 0
  CHECK (new_holder_reads_earlier IN (0, 1));
