-- 0005: reserved for the auth branch of issue 10 (secrets hashed). This placeholder only keeps
-- the migration sequence 1, 2, 3, ... unbroken on the mail branch, which adds 0006; it changes
-- nothing. When merging, keep the auth branch's 0005 and delete this file.
SELECT 1;
