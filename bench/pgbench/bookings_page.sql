-- following the feed: each client carries its own `next` (\gset), as the load generator does
SELECT status, body::text, body ->> 'next' AS next FROM api.bookings_get(:auth, NULLIF(:next::text, 'none'), :limit)
\gset
