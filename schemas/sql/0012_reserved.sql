-- 0012_reserved: a number taken by another branch of issue 11; this placeholder keeps the
-- sequence whole on its own. Drop it when that branch's migration 0012 is merged.
SELECT 1;
