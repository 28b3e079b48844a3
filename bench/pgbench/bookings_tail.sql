-- The empty tail: a poll at the end of the feed (since: the token there), nothing new after it.
SELECT status, body::text FROM api.bookings_get(:auth, :since, :limit);
