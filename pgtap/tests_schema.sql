\echo tests schema placeholder
