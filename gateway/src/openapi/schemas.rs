//! The document's schemas of bodies and answers. Every field of a body — the lot, the rates, the
//! closure list, the booking — comes from the database's field registries ([`crate::registry`]):
//! its name, kind, bounds, choices, whether it is required or may be null, and its description. The
//! kind gives the field's form, written here once per kind, and each form accepts exactly what the
//! database's reader of that kind takes (`sql/functions/app/body/json_value_readers.sql`). Rules
//! between fields or against stored data (floor ≤ base ≤ ceiling, paired coordinates, a zone or
//! country in the reference lists, the settlement currency, the media folder, overlapping closures)
//! cannot be written in JSON Schema: the registries' descriptions say them.

use serde_json::{json, Map, Value};

use crate::registry::{self, LotField};

/// Every schema of `components.schemas`.
pub fn all() -> Map<String, Value> {
    let forms = Forms::new();
    let mut schemas = Map::new();
    lot_schemas(&forms, &mut schemas);
    rates_schemas(&mut schemas);
    blocked_period_schemas(&forms, &mut schemas);
    booking_schemas(&mut schemas);
    answer_schemas(&mut schemas);
    schemas
}

pub fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// `schema` or JSON null, described as a whole (a choice of forms gains null as one more).
fn nullable(mut schema: Value, description: &str) -> Value {
    if let Some(forms) = schema.get_mut("anyOf").and_then(Value::as_array_mut) {
        forms.push(json!({ "type": "null" }));
        return described(schema, description);
    }
    json!({ "anyOf": [schema, { "type": "null" }], "description": description })
}

fn described(mut schema: Value, description: &str) -> Value {
    schema["description"] = description.into();
    schema
}

/// `schema`, described, and null allowed too when `null_allowed`.
fn described_maybe_null(schema: Value, description: &str, null_allowed: bool) -> Value {
    if null_allowed {
        nullable(schema, description)
    } else {
        described(schema, description)
    }
}

/// An object of these properties, these required, and no other key.
fn closed_object(properties: Map<String, Value>, required: Vec<String>, description: &str) -> Value {
    json!({
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// A closed object every one of whose properties is always present.
fn complete_object(properties: Map<String, Value>, description: &str) -> Value {
    let keys = properties.keys().cloned().collect();
    closed_object(properties, keys, description)
}

/// The patterns the forms share, made once.
struct Forms {
    /// A text that is not blank: one character outside the database's white space.
    not_blank: String,
    /// Surrounding white space, as the database trims it.
    white_space: String,
}

impl Forms {
    fn new() -> Forms {
        let class = registry::WHITE_SPACE_CLASS;
        Forms { not_blank: format!("[^{class}]"), white_space: format!("[{class}]*") }
    }

    /// A text of at most `max` characters (app.json_text); unless `blank_allowed`, not empty nor
    /// white space alone (a blank required lot text is `missing_field`, a blank reason refused).
    fn text(&self, max: Option<&str>, blank_allowed: bool) -> Value {
        let mut schema = json!({ "type": "string", "maxLength": integer(max) });
        if !blank_allowed {
            schema["minLength"] = 1.into();
            schema["pattern"] = self.not_blank.clone().into();
        }
        schema
    }

    /// What the write body takes for a lot field, by its kind (app.lot_from_body, app.json_field).
    fn lot_input(&self, field: &LotField) -> Value {
        let max = field.max_value;
        match field.kind {
            "text" => self.text(max, !field.required),
            "zone" => {
                json!({ "type": "string", "minLength": 1, "maxLength": integer(max), "examples": ["Europe/London"] })
            }
            "choice" => json!({ "type": "string", "enum": field.choices }),
            "boolean" => json!({ "type": "boolean" }),
            "integer" => integer_form(field.min_value, field.max_value),
            "coordinate" => coordinate_input(field),
            "country" => json!({
                "type": "string",
                "pattern": format!("^{ws}[A-Za-z]{{2}}{ws}$", ws = self.white_space),
                "examples": ["GB"],
            }),
            "choice_set" => json!({
                "type": "array",
                "maxItems": integer(max),
                "items": { "type": "string", "enum": field.choices },
            }),
            "arrival" => arrival(true),
            "media" => media(),
            "money" => money_input(max.expect("money has a most")),
            kind => panic!("app.lot_fields: no form for the kind {kind}"),
        }
    }

    /// What the lot's read form holds for a field, by its kind (app.lot_read_form).
    fn lot_output(&self, field: &LotField) -> Value {
        match field.kind {
            "text" => self.text(field.max_value, true),
            "zone" => {
                json!({ "type": "string", "maxLength": integer(field.max_value), "examples": ["Europe/London"] })
            }
            "coordinate" => {
                json!({ "type": "string", "pattern": "^-?[0-9]+(?:\\.[0-9]{1,6})?$", "examples": ["51.5"] })
            }
            "country" => json!({ "type": "string", "pattern": "^[A-Z]{2}$", "examples": ["GB"] }),
            "choice_set" => json!({
                "type": "array",
                "uniqueItems": true,
                "maxItems": integer(field.max_value),
                "items": { "type": "string", "enum": field.choices },
            }),
            "arrival" => arrival(false),
            "media" => media(),
            "money" => money_output(),
            _ => self.lot_input(field),
        }
    }
}

/// A registry bound as a JSON number (NULL: none).
fn integer(bound: Option<&str>) -> Value {
    bound.map_or(Value::Null, |b| b.parse::<i64>().expect("an integral bound").into())
}

fn decimal(bound: &str) -> Value {
    serde_json::from_str(bound).expect("a decimal bound")
}

/// A JSON number of integral value (12 and 12.0 alike) within the field's bounds.
fn integer_form(min: Option<&str>, max: Option<&str>) -> Value {
    let mut schema = json!({ "type": "integer" });
    if let Some(min) = min {
        schema["minimum"] = integer(Some(min));
    }
    if let Some(max) = max {
        schema["maximum"] = integer(Some(max));
    }
    schema
}

/// The decimal strings app.json_decimal reads (`-?digits[.digits]`, at most 100 characters), whose
/// value is within ±bound.
fn coordinate_input(field: &LotField) -> Value {
    let bound: u64 = field.max_value.and_then(|b| b.parse().ok()).expect("a whole-degree bound");
    assert_eq!(field.min_value, Some(format!("-{bound}").as_str()), "a coordinate's range is ±bound");
    let pattern = format!("^-?0*(?:(?:{})(?:\\.[0-9]+)?|{bound}(?:\\.0+)?)$", integer_up_to(bound - 1));
    json!({
        "anyOf": [
            { "type": "number", "minimum": -(bound as f64), "maximum": bound as f64 },
            { "type": "string", "maxLength": 100, "pattern": pattern },
        ],
        "examples": ["51.507351"],
    })
}

/// Money (app.json_money): a JSON number or a decimal string, never negative, at most `most`, two
/// decimals (a third decimal only when it is zero: "12.340" is taken, "50.005" is not).
fn money_input(most: &str) -> Value {
    json!({
        "anyOf": [
            { "type": "number", "minimum": 0, "maximum": decimal(most), "multipleOf": 0.01 },
            { "type": "string", "maxLength": 100, "pattern": money_pattern(most) },
        ],
        "examples": ["12.50"],
    })
}

/// Money as every answer writes it: a string of two decimals.
fn money_output() -> Value {
    json!({ "type": "string", "pattern": "^[0-9]+\\.[0-9]{2}$", "examples": ["12.50"] })
}

/// The decimal strings of money up to `most` (`9999999999.99`: any two decimals up to that whole
/// part; `100`: below it with two decimals, or exactly it). "-0" is zero, and zero is money.
fn money_pattern(most: &str) -> String {
    let cents = "(?:\\.[0-9]{1,2}0*)?";
    let (whole, fraction) = most.split_once('.').unwrap_or((most, ""));
    let whole: u64 = whole.parse().expect("a whole part");
    let positive = match fraction {
        "99" => format!("0*(?:{}){cents}", integer_up_to(whole)),
        "" | "0" | "00" => format!("0*(?:(?:{}){cents}|{whole}(?:\\.0+)?)", integer_up_to(whole - 1)),
        other => panic!("no money pattern for a most of .{other}"),
    };
    format!("^(?:-0+(?:\\.0+)?|{positive})$")
}

/// A regular expression (no anchors) of the digit strings whose value is 0..=n, leading zeros aside.
fn integer_up_to(n: u64) -> String {
    let digits = n.to_string();
    if digits.bytes().all(|b| b == b'9') {
        return format!("[0-9]{{1,{}}}", digits.len());
    }
    let mut alternatives = Vec::new();
    match digits.len() {
        1 => {}
        2 => alternatives.push("[0-9]".to_string()),
        length => alternatives.push(format!("[0-9]{{1,{}}}", length - 1)),
    }
    alternatives.push(same_length_up_to(&digits));
    alternatives.join("|")
}

/// `[0-d]`, or the one digit when d is 0.
fn digit_up_to(d: u8) -> String {
    if d == 0 {
        "0".to_string()
    } else {
        format!("[0-{d}]")
    }
}

/// `[0-9]` n times.
fn any_digits(n: usize) -> String {
    if n == 1 {
        "[0-9]".to_string()
    } else {
        format!("[0-9]{{{n}}}")
    }
}

/// The strings of exactly as many digits as `digits`, up to its value.
fn same_length_up_to(digits: &str) -> String {
    let first = digits.as_bytes()[0] - b'0';
    let rest = &digits[1..];
    if rest.is_empty() {
        return digit_up_to(first);
    }
    let mut alternatives = Vec::new();
    if first > 0 {
        alternatives.push(format!("{}{}", digit_up_to(first - 1), any_digits(rest.len())));
    }
    alternatives.push(format!("{first}(?:{})", same_length_up_to(rest)));
    alternatives.join("|")
}

/// A calendar day `YYYY-MM-DD` (app.json_date: it must also be a real day, as `format: date` says),
/// in the years `years` when given.
fn date(years: Option<(u32, u32)>) -> Value {
    let year = match years {
        Some((first, last)) => (first..=last).map(|y| y.to_string()).collect::<Vec<_>>().join("|"),
        None => "[1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9]".to_string(),
    };
    json!({
        "type": "string",
        "format": "date",
        "pattern": format!("^(?:{year})-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])$"),
        "examples": ["2026-07-01"],
    })
}

/// arrival: an object, stored as sent (the database judges none of its members). The write body
/// describes each recognised key in the form the listing requirement and the marketplace read, so
/// a generated client writes that form: prose is a string or an object of strings keyed by language
/// tag; `transfer` an object of its own. The read form names the same keys but takes any value in
/// them, since a lot comes back as it was stored, whoever wrote it: a typed read form would let one
/// lot written in another form stop a generated client reading a whole page. Other keys are kept.
fn arrival(written: bool) -> Value {
    let any = |description: &str| json!({ "description": description });
    let prose = |description: &str| {
        if !written {
            return any(description);
        }
        json!({
            "anyOf": [
                { "type": "string" },
                { "type": "object", "additionalProperties": { "type": "string" }, "examples": [{ "en": "North gate", "fr": "Porte nord" }] },
            ],
            "description": description,
        })
    };
    let transfer_description = "A shuttle between the lot and what it serves.";
    let transfer = if written {
        json!({
            "type": "object",
            "description": transfer_description,
            "properties": {
                "line": prose("The shuttle's name or line."),
                "first": { "type": "string", "description": "The day's first departure, on the lot's clock.", "examples": ["05:00"] },
                "last": { "type": "string", "description": "The day's last departure, on the lot's clock.", "examples": ["23:30"] },
                "frequencyMinutes": { "type": "integer", "minimum": 1, "description": "Minutes between departures." },
                "pickupPoint": prose("Where travellers board."),
            },
            "additionalProperties": true,
        })
    } else {
        any(transfer_description)
    };
    json!({
        "type": "object",
        "properties": {
            "entrance": prose("How to find the entrance. Satisfies lot_arrival_guidance when it holds some text."),
            "access": prose("How to get in (a code, an intercom, a barrier). Satisfies lot_arrival_guidance when it holds some text."),
            "gateWindow": prose("When the gate is open. Satisfies lot_arrival_guidance when it holds some text."),
            "streetAddress": prose("The address for navigation."),
            "parkingLevel": prose("The level or area to park on."),
            "transfer": transfer,
        },
        "additionalProperties": true,
    })
}

/// media: any object whose heroUrl is a string and galleryUrls an array of strings, where present;
/// either may be null (as absent), and comes back as it was sent, since media is stored as sent.
fn media() -> Value {
    let hero = json!({ "type": "string", "examples": ["https://photos.example.com/lot-media/op-7/hero.jpg"] });
    let gallery = json!({ "type": "array", "items": { "type": "string" } });
    let (hero, gallery) =
        (json!({ "anyOf": [hero, { "type": "null" }] }), json!({ "anyOf": [gallery, { "type": "null" }] }));
    json!({
        "type": "object",
        "properties": { "heroUrl": hero, "galleryUrls": gallery },
        "additionalProperties": true,
    })
}

/// The description a client reads: the registry's, and whether a change voids a review.
fn lot_description(field: &LotField) -> String {
    let reviewed = if field.reviewed { " Reviewed: a change voids a pending or approved listing review." } else { "" };
    format!("{}{reviewed}", field.description)
}

const CANCELLATION_DESCRIPTION: &str = "The operator's own cancellation policy: all three keys or none \
    (else `incomplete_cancellation_policy`); null, absent or `{}` means no policy. It does not set the terms \
    of a marketplace sale: every marketplace booking carries the platform's own terms. Reviewed (as \
    `cancellation_free_until_hours_before_check_in`, `cancellation_penalty_percent_after` and \
    `cancellation_no_show_forfeits_full` in `changed`).";

/// LotWriteBody, Lot, LotListEntry, CancellationInput and Cancellation, from app.lot_fields.
fn lot_schemas(forms: &Forms, schemas: &mut Map<String, Value>) {
    let (mut input, mut output) = (Map::new(), Map::new());
    let (mut cancellation_input, mut cancellation_output) = (Map::new(), Map::new());
    let mut required = Vec::new();
    input.insert(
        "external_id".into(),
        nullable(
            json!({ "type": "string", "minLength": 1, "maxLength": 200 }),
            "The lot's id, if sent, must equal the path's (else `invalid_body`, field `external_id`). Checked, \
             not used.",
        ),
    );
    output.insert("external_id".into(), json!({ "type": "string", "description": "Your id of the lot." }));
    for field in registry::LOT_FIELDS {
        let description = lot_description(field);
        let (write, read) = (forms.lot_input(field), forms.lot_output(field));
        let null_when_unset = !field.required && field.default_value.is_none();
        match field.body_path {
            [key] => {
                if field.required {
                    required.push(key.to_string());
                }
                input.insert(key.to_string(), described_maybe_null(write, &description, !field.required));
                output.insert(key.to_string(), described_maybe_null(read, &description, null_when_unset));
            }
            ["cancellation", key] => {
                cancellation_input.insert(key.to_string(), nullable(write, field.description));
                cancellation_output.insert(key.to_string(), described(read, field.description));
            }
            path => panic!("app.lot_fields: no place in the document for {path:?}"),
        }
    }
    input.insert("cancellation".into(), nullable(reference("CancellationInput"), CANCELLATION_DESCRIPTION));
    output.insert("cancellation".into(), nullable(reference("Cancellation"), CANCELLATION_DESCRIPTION));
    schemas.insert(
        "CancellationInput".into(),
        closed_object(cancellation_input, Vec::new(), "All three keys or none; a key with null counts as absent."),
    );
    schemas.insert("Cancellation".into(), complete_object(cancellation_output, "The stored cancellation policy."));
    let write_body = closed_object(
        input,
        required,
        "The WHOLE lot: an absent key means null (or the field's default), never 'leave as it was'. Unknown keys \
         are refused (`unknown_field`); `rates` is refused with `field_belongs_to_another_route` (prices are set \
         at PUT /lots/{external_id}/rates); an array body is `too_many_lots`.",
    );
    schemas.insert("LotWriteBody".into(), write_body);
    schemas.insert("Lot".into(), complete_object(output.clone(), "A lot as stored: every key always present."));
    output.insert(
        "rates".into(),
        nullable(reference("Rates"), "The lot's marketplace price envelope; null: no marketplace price yet."),
    );
    schemas.insert("LotListEntry".into(), complete_object(output, "A lot as stored, with its price envelope."));
}

/// RatesWriteBody and Rates, from app.rates_fields.
fn rates_schemas(schemas: &mut Map<String, Value>) {
    let (mut input, mut output) = (Map::new(), Map::new());
    output.insert(
        "channel".into(),
        json!({ "type": "string", "const": "marketplace", "description": "The price channel: always the marketplace." }),
    );
    for field in registry::RATES_FIELDS {
        let description = field.description;
        let money = || money_input(field.max_value.expect("money has a most"));
        let (write, read, read_nullable) = match field.kind {
            "price" => (money(), money_output(), false),
            "money" => (money(), money_output(), true),
            "currency" => (
                json!({ "type": "string", "pattern": "^[A-Za-z]{3}$", "examples": ["EUR"] }),
                json!({ "type": "string", "pattern": "^[A-Z]{3}$", "examples": ["EUR"] }),
                false,
            ),
            "boolean" => (json!({ "type": "boolean" }), json!({ "type": "boolean" }), false),
            "date" => (date(None), date(None), true),
            kind => panic!("app.rates_fields: no form for the kind {kind}"),
        };
        input.insert(field.name.into(), nullable(write, description));
        if field.stored {
            output.insert(field.name.into(), described_maybe_null(read, description, read_nullable));
        }
    }
    let write_body = closed_object(
        input,
        Vec::new(),
        "Exactly one of two shapes. Range: `floor_price`, `base_price` and `ceiling_price` all three, without \
         `fixed_price` (an incomplete range is `missing_field` naming the first missing). Fixed: `fixed_price` \
         alone. Both shapes: `invalid_body`, field `fixed_price`; neither: `missing_field`, field `fixed_price`. A \
         key with null counts as absent. Unknown keys are refused (`unknown_field`).",
    );
    schemas.insert("RatesWriteBody".into(), write_body);
    schemas.insert("Rates".into(), complete_object(output, "The lot's marketplace price envelope."));
}

/// BlockedPeriodsWriteBody, BlockedPeriodInput and BlockedPeriod, from app.blocked_period_fields.
fn blocked_period_schemas(forms: &Forms, schemas: &mut Map<String, Value>) {
    let (mut input, mut output, mut required) = (Map::new(), Map::new(), Vec::new());
    let mut list = None;
    for field in registry::BLOCKED_PERIOD_FIELDS {
        let description = field.description;
        let schema = match field.kind {
            "list" => {
                list = Some(field);
                continue;
            }
            "date" => {
                let (first, last) = (field.first_day.expect("a date's bound"), field.last_day.expect("a date's bound"));
                assert!(first.ends_with("-01-01") && last.ends_with("-12-31"), "a date's range is whole years");
                let year = |day: &str| -> u32 { day[..4].parse().expect("a year") };
                date(Some((year(first), year(last))))
            }
            "text" => forms.text(field.max_value.map(|most| most.to_string()).as_deref(), false),
            "count" => json!({ "type": "integer", "minimum": 0 }),
            kind => panic!("app.blocked_period_fields: no form for the kind {kind}"),
        };
        let (name, null_allowed) = (field.name.to_string(), !field.required);
        if field.in_body {
            if !null_allowed {
                required.push(name.clone());
            }
            input.insert(name.clone(), described_maybe_null(schema.clone(), description, null_allowed));
        }
        output.insert(name, described_maybe_null(schema, description, null_allowed));
    }
    let list = list.expect("app.blocked_period_fields has the list");
    schemas.insert(
        "BlockedPeriodInput".into(),
        closed_object(input, required, "One closure; an unknown key is `invalid_blocked_periods` naming it."),
    );
    schemas.insert(
        "BlockedPeriod".into(),
        complete_object(output, "A stored closure, with the count of bookings whose stay touches it."),
    );
    let mut properties = Map::new();
    properties.insert(
        "blocked_periods".into(),
        json!({
            "type": "array",
            "maxItems": list.max_value,
            "items": reference("BlockedPeriodInput"),
            "description": list.description,
        }),
    );
    let write_body = closed_object(
        properties,
        vec!["blocked_periods".into()],
        "The closure list. No other key (`unknown_field`); a missing `blocked_periods` is `missing_field`. Every \
         content refusal is `invalid_blocked_periods`, `field` naming the entry (`blocked_periods[0].ends_on`).",
    );
    schemas.insert("BlockedPeriodsWriteBody".into(), write_body);
}

/// Booking, from app.booking_fields.
fn booking_schemas(schemas: &mut Map<String, Value>) {
    let mut properties = Map::new();
    for field in registry::BOOKING_FIELDS {
        let schema = match field.kind {
            "text" => json!({ "type": "string" }),
            "integer" => json!({ "type": "integer", "minimum": 1 }),
            "choice" => json!({ "type": "string", "enum": field.choices }),
            "currency" => json!({ "type": "string", "pattern": "^[A-Z]{3}$", "examples": ["EUR"] }),
            "money" => money_output(),
            "local_date_time" => json!({
                "type": "string",
                "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$",
                "examples": ["2026-07-01T08:30:00"],
            }),
            "date_time" => json!({ "type": "string", "format": "date-time" }),
            "customer" => {
                let mut keys = Map::new();
                for key in ["first_name", "last_name", "email", "phone"] {
                    keys.insert(key.into(), json!({ "type": ["string", "null"] }));
                }
                complete_object(keys, "")
            }
            "text_list" => json!({ "type": "array", "items": { "type": "string" } }),
            kind => panic!("app.booking_fields: no form for the kind {kind}"),
        };
        properties.insert(field.name.into(), described_maybe_null(schema, field.description, field.nullable));
    }
    schemas.insert(
        "Booking".into(),
        complete_object(properties, "A booking of any channel, read-only: every key always present."),
    );
}

/// The answers' own shapes (pages, write results, the ping, the hint), around the body schemas.
fn answer_schemas(schemas: &mut Map<String, Value>) {
    let object = |properties: Value, description: &str| {
        complete_object(properties.as_object().cloned().unwrap_or_default(), description)
    };
    // `changed`: the registry's names that differ, in its order
    let changed = |names: Vec<&str>| {
        let names: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
        json!({
            "type": "array",
            "items": { "type": "string" },
            "description": format!("The fields that actually differ, in this order: {}. Empty on unchanged.", names.join(", ")),
        })
    };
    let lot_changed = changed(registry::LOT_FIELDS.iter().map(|f| f.name).collect());
    let rates_changed = changed(registry::RATES_FIELDS.iter().filter(|f| f.stored).map(|f| f.name).collect());
    let result = json!({
        "type": "string",
        "enum": ["created", "updated", "unchanged"],
        "description": "`created` (201, 200 on a dry run), `updated`, or `unchanged` (nothing differed: no statement was issued).",
    });
    let dry_run = json!({ "type": "boolean", "const": true, "description": "Present, and true, only on a dry run." });
    // every key always present but dry_run, which only a dry run carries
    let write_result = |extra: Value, description: &str| {
        let mut properties = extra.as_object().cloned().unwrap_or_default();
        properties.insert("external_id".into(), json!({ "type": "string", "description": "Your id of the lot." }));
        properties.insert("result".into(), result.clone());
        let required = properties.keys().cloned().collect();
        properties.insert("dry_run".into(), dry_run.clone());
        closed_object(properties, required, description)
    };
    schemas.insert(
        "PingResult".into(),
        object(
            json!({
                "ok": { "type": "boolean", "const": true },
                "key_id": { "type": "string", "pattern": "^pk_api_[0-9a-f]{32}$", "description": "The public half of the credential." },
                "scopes": {
                    "type": "array",
                    "items": { "type": "string", "enum": ["read_supply", "write_supply", "read_bookings"] },
                    "description": "`read_supply`: list lots, prices and closures; `write_supply`: create and amend them; `read_bookings`: pull bookings.",
                },
                "server_time": { "type": "string", "format": "date-time", "description": "UTC; informational only." },
            }),
            "The credential is valid.",
        ),
    );
    schemas.insert(
        "LotPage".into(),
        object(
            json!({
                "lots": { "type": "array", "items": reference("LotListEntry") },
                "next_after": {
                    "type": ["string", "null"],
                    "description": "The `after` of the next page when this one was full; null: the last page.",
                },
            }),
            "One page of the operator's lots, by external_id ascending.",
        ),
    );
    schemas.insert(
        "LotWriteResult".into(),
        write_result(
            json!({
                "changed": lot_changed,
                "listing_review_superseded": {
                    "type": "boolean",
                    "description": "True when a reviewed field changed and a pending or approved listing review was voided: the lot stops selling until a person approves it again.",
                },
                "lot": reference("Lot"),
            }),
            "What the write did (or would do, on a dry run), and the stored lot read back.",
        ),
    );
    schemas.insert(
        "RatesWriteResult".into(),
        write_result(
            json!({
                "changed": rates_changed,
                "envelope_widened": {
                    "type": "boolean",
                    "description": "True when the floor went down, the ceiling went up, the currency changed, `dynamic` flipped, or no envelope existed before: the write may have voided the lot's listing review (a conservative signal, never false when it did). Compared with the envelope live just before the write.",
                },
                "rates": reference("Rates"),
            }),
            "What the write did (or would do, on a dry run), and the envelope stored.",
        ),
    );
    schemas.insert(
        "BlockedPeriodList".into(),
        object(
            json!({
                "external_id": { "type": "string", "description": "Your id of the lot." },
                "blocked_periods": { "type": "array", "items": reference("BlockedPeriod"), "description": "Earliest first." },
            }),
            "The lot's whole closure list.",
        ),
    );
    schemas.insert(
        "BlockedPeriodsWriteResult".into(),
        write_result(
            json!({
                "added": { "type": "integer", "minimum": 0, "description": "Closures added (0 on unchanged)." },
                "removed": { "type": "integer", "minimum": 0, "description": "Closures removed (0 on unchanged)." },
                "blocked_periods": {
                    "type": "array",
                    "items": reference("BlockedPeriod"),
                    "description": "The stored list read back after the write, with fresh overlapping_bookings.",
                },
            }),
            "`created`: the list had no periods and now has some; `updated`: anything else that wrote, emptying it included.",
        ),
    );
    schemas.insert(
        "BookingPage".into(),
        object(
            json!({
                "bookings": { "type": "array", "items": reference("Booking") },
                "next": {
                    "type": "string",
                    "description": "The cursor to send as `since` next time. Save it only after durably storing the page; it never points past the watermark (now minus five minutes), so recent bookings may come again.",
                },
                "has_more": {
                    "type": "boolean",
                    "description": "True when more bookings follow at once; false: wait before the next pull.",
                },
            }),
            "One page of the feed. Delivery is at-least-once: de-duplicate on `reference`.",
        ),
    );
    schemas.insert(
        "BookingChanged".into(),
        object(
            json!({
                "event": { "type": "string", "const": "booking.changed" },
                "booking_reference": { "type": "string", "description": "The booking's `reference` in the feed." },
                "occurred_at": {
                    "type": "string",
                    "format": "date-time",
                    "description": "UTC, when the change was recorded (not when this attempt was sent; retries send it unchanged).",
                },
            }),
            "A hint to pull GET /bookings, never a data carrier: the whole body.",
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server's rule for a money string (app.json_decimal, then app.json_money), exactly.
    fn server_takes_money(text: &str, most: f64) -> bool {
        let unsigned = text.strip_prefix('-').unwrap_or(text);
        let (whole, fraction) = match unsigned.split_once('.') {
            Some((whole, fraction)) => (whole, Some(fraction)),
            None => (unsigned, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if text.len() > 100 || !digits(whole) || fraction.is_some_and(|f| !digits(f)) {
            return false;
        }
        let fraction = fraction.unwrap_or("");
        if text.starts_with('-') {
            return whole.bytes().chain(fraction.bytes()).all(|b| b == b'0');
        }
        let cents = format!("{:0<2}", &fraction[..fraction.len().min(2)]);
        fraction.bytes().skip(2).all(|b| b == b'0') && format!("{whole}.{cents}").parse::<f64>().unwrap() <= most
    }

    fn matches(pattern: &str, text: &str) -> bool {
        regex::Regex::new(pattern).unwrap().is_match(text)
    }

    #[test]
    fn the_money_pattern_takes_exactly_what_the_server_takes() {
        let samples = [
            "0",
            "-0",
            "-0.00",
            "-1",
            "-0.01",
            "12",
            "12.3",
            "12.34",
            "12.340",
            "12.3400",
            "12.345",
            "50.005",
            "12.",
            ".5",
            "012.50",
            "1e3",
            "+1",
            "100",
            "100.00",
            "100.01",
            "100.001",
            "99.99",
            "101",
            "9999999999.99",
            "9999999999.999",
            "10000000000",
            "00000000009999999999.99",
            "1 ",
            "",
        ];
        for (most, limit) in [("100", 100.0), ("9999999999.99", 9_999_999_999.99)] {
            let pattern = money_pattern(most);
            for sample in samples {
                assert_eq!(matches(&pattern, sample), server_takes_money(sample, limit), "{sample:?} against {most}");
            }
        }
    }

    #[test]
    fn integer_ranges_match_every_value_up_to_the_bound_and_none_above() {
        for bound in [0u64, 7, 9, 10, 89, 99, 100, 179, 365, 999, 1000] {
            let pattern = format!("^0*(?:{})$", integer_up_to(bound));
            for value in 0..=bound + 20 {
                assert_eq!(matches(&pattern, &value.to_string()), value <= bound, "{value} against {bound}");
            }
        }
    }

    #[test]
    fn coordinates_take_decimal_strings_within_their_range() {
        let latitude = registry::LOT_FIELDS.iter().find(|f| f.name == "latitude").unwrap();
        let pattern = coordinate_input(latitude)["anyOf"][1]["pattern"].as_str().unwrap().to_string();
        for (text, taken) in [
            ("51.5", true),
            ("-90", true),
            ("90.000", true),
            ("90.0001", false),
            ("-89.999999", true),
            ("0", true),
            ("91", false),
            ("100", false),
            ("5.", false),
            ("+5", false),
            ("1e1", false),
            ("009", true),
        ] {
            assert_eq!(matches(&pattern, text), taken, "{text}");
        }
    }

    #[test]
    fn dates_of_closures_are_the_registry_years() {
        let pattern = date(Some((2020, 2032)))["pattern"].as_str().unwrap().to_string();
        for (text, taken) in [
            ("2020-01-01", true),
            ("2032-12-31", true),
            ("2019-12-31", false),
            ("2033-01-01", false),
            ("2026-13-01", false),
            ("2026-02-30", true),
        ] {
            assert_eq!(matches(&pattern, text), taken, "{text}");
        }
        let any = date(None)["pattern"].as_str().unwrap().to_string();
        assert!(!matches(&any, "0000-01-01") && matches(&any, "0001-01-01") && matches(&any, "2026-07-01"));
    }

    #[test]
    fn a_required_text_must_not_be_blank_by_the_database_white_space() {
        let forms = Forms::new();
        for (text, taken) in
            [("Harbour", true), ("  x ", true), ("", false), ("   ", false), ("\u{3000}\u{85}\t", false)]
        {
            assert_eq!(matches(&forms.not_blank, text), taken, "{text:?}");
        }
    }
}
