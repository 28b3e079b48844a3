-- following the feed: each client carries its own `next` (\gset), as the load generator does, and
-- starts again from the beginning (next=none) after the feed's last page (has_more false: a short or
-- empty page, or a full one with nothing after it), so every page measured is a full page
SELECT status, body::text,
       CASE WHEN (body -> 'has_more')::boolean THEN body ->> 'next' ELSE 'none' END AS next
  FROM api.bookings_get(:auth, NULLIF(:next::text, 'none'), :limit)
\gset
