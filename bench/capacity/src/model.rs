//! The load model: what one operator's system does, and when. The contract gives no intervals; these
//! are the model's choice, written once here and printed with every figure.
//!
//! - pulls the bookings feed every 10 s (following `next` while `has_more`), and at once when a
//!   webhook hint for it arrives;
//! - pushes one lot's rates every minute, one lot's closure list every 10 minutes, one lot PUT every
//!   5 minutes (nine in ten unchanged, one in ten with a changed field; one in twenty a dry run),
//!   and lists its lots every 10 minutes;
//! - the platform records bookings in proportion to an operator's lots, one per lot per 8 hours
//!   (an operator of 1 000 lots about 125 an hour, one of 5 lots one every 96 minutes), through
//!   `platform.booking_record`, each on one of its lots, and updates one in ten of them a minute
//!   later; half the operators have a webhook endpoint armed.
//!
//! Every operator starts each action at its own offset within the interval, so the load is spread
//! evenly, and sends on schedule whatever the server's answers take (open loop).

use std::time::Duration;

pub const FEED_POLL: Duration = Duration::from_secs(10);
pub const RATES_PUSH: Duration = Duration::from_secs(60);
pub const LOT_PUT: Duration = Duration::from_secs(300);
pub const CLOSURES_PUSH: Duration = Duration::from_secs(600);
pub const LOTS_LIST: Duration = Duration::from_secs(600);
pub const BOOKING_PER_LOT: Duration = Duration::from_secs(8 * 3600);
pub const BOOKING_UPDATE_AFTER: Duration = Duration::from_secs(60);
/// Page sizes a real client asks for: the feed's and the lot list's largest.
pub const FEED_LIMIT: u32 = 500;
pub const LOTS_LIMIT: u32 = 200;

/// The bounds a step must hold to count (p99, ms).
pub const ROUTE_P99_MS: u64 = 50;
pub const FEED_P99_MS: u64 = 100;
pub const HINT_P99_MS: u64 = 2_000;
pub const BOOKING_TO_FEED_P99_MS: u64 = 12_000;

/// The model's intervals as one line, for the report.
pub fn describe() -> String {
    format!(
        "feed pull every {}s (and on each hint), rates push every {}s, lot PUT every {}s (1 in 10 changed, 1 in 20 \
         a dry run), closure list every {}s, lot list every {}s; one booking recorded per lot per {}s, 1 in 10 \
         updated {}s later; endpoints armed for half the operators",
        FEED_POLL.as_secs(),
        RATES_PUSH.as_secs(),
        LOT_PUT.as_secs(),
        CLOSURES_PUSH.as_secs(),
        LOTS_LIST.as_secs(),
        BOOKING_PER_LOT.as_secs(),
        BOOKING_UPDATE_AFTER.as_secs()
    )
}

/// How many lots operator `i` holds: as bench/capacity/seed.sql's `capacity.lots_of`.
pub fn lots_of(i: u32) -> u32 {
    if i.is_multiple_of(100) {
        1000
    } else {
        5 + (i.wrapping_mul(7919)) % 16
    }
}

/// A number in 0..1 fixed by its inputs (no random generator: two runs send the same).
pub fn fraction(a: u64, b: u64) -> f64 {
    let mut x = a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// An operator's offset for an action within its interval.
pub fn offset(operator: u32, action: u64, interval: Duration) -> Duration {
    interval.mul_f64(fraction(operator as u64, action))
}

pub fn lot_id(n: u32) -> String {
    format!("lot-{n:06}")
}

/// The lot body as seeded (bench/capacity/seed.sql), `changed` moving its capacity.
pub fn lot_body(n: u32, changed: bool) -> String {
    let capacity = 50 + n % 950 + u32::from(changed);
    serde_json::json!({
        "name": format!("Car park {n}"),
        "timezone": "Europe/Paris",
        "handover": if n.is_multiple_of(2) { "self" } else { "attended" },
        "online_bookable": true,
        "capacity": capacity,
        "latitude": format!("{:.3}", 48.0 + (n % 1000) as f64 / 1000.0),
        "longitude": format!("{:.3}", 2.0 + (n % 997) as f64 / 1000.0),
        "city": "Paris",
        "country_code": "FR",
        "features": ["cameras", "indoor"],
        "arrival": {"entrance": format!("Gate {}", n % 7)},
        "media": {"heroUrl": format!("https://img.example/{n}.jpg")},
        "min_stay_days": 1,
        "max_stay_days": 30
    })
    .to_string()
}

/// The rates body: the seeded envelope, its base price moved within it when `changed`.
pub fn rates_body(changed: bool) -> String {
    let base = if changed { "16.00" } else { "15.00" };
    format!(r#"{{"floor_price":"10.00","base_price":"{base}","ceiling_price":"30.00","currency":"EUR"}}"#)
}

/// A closure list of two periods; `changed` moves the second.
pub fn closures_body(changed: bool) -> String {
    let second = if changed { ("2027-03-01", "2027-03-03") } else { ("2027-02-01", "2027-02-03") };
    format!(
        r#"{{"blocked_periods":[{{"starts_on":"2027-01-10","ends_on":"2027-01-12","reason":"Works"}},{{"starts_on":"{}","ends_on":"{}","reason":null}}]}}"#,
        second.0, second.1
    )
}

/// Which operator records booking `sequence`: one chosen in proportion to its lots, `lots_before`
/// holding each operator's first lot's rank among all of them (ascending, starting at 0) and
/// `total` the lots of all.
pub fn booking_operator(sequence: u64, lots_before: &[u64], total: u64) -> usize {
    let rank = (fraction(sequence, 17) * total as f64) as u64;
    lots_before.partition_point(|&first| first <= rank) - 1
}

/// A booking as the platform records it, on one of operator `i`'s lots.
pub fn booking(i: u32, sequence: u64) -> serde_json::Value {
    let lot = 1 + (fraction(sequence, i as u64 + 19) * lots_of(i) as f64) as u32;
    serde_json::json!({
        "external_reference": format!("PLT-{i}-{sequence}"),
        "lot_external_id": lot_id(lot),
        "check_in_local": "2027-05-01T08:00:00",
        "check_out_local": "2027-05-04T18:30:00",
        "parking_days": 4,
        "status": "confirmed",
        "payment_status": "paid",
        "currency": "EUR",
        "total": "60.50",
        "channel": "marketplace",
        "flight_number": "BA1234",
        "customer": {"first_name": "Ada", "last_name": format!("Traveller {sequence}"),
                     "email": format!("p{sequence}@example.invalid"), "phone": "+44 20 7946 0000"},
        "vehicle_plates": ["PL-123"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lot_counts_are_the_seeds() {
        // (capacity.lots_of in seed.sql: 5 + (i * 7919) % 16, 1 000 for every hundredth)
        assert_eq!(lots_of(100), 1000);
        assert_eq!(lots_of(1), 5 + 7919 % 16);
        assert!((1..=99).all(|i| (5..=20).contains(&lots_of(i))));
    }

    #[test]
    fn bookings_go_to_operators_in_proportion_to_their_lots() {
        // operators of 10, 30 and 60 lots: about a tenth, three tenths and six tenths of the bookings
        let lots_before = [0, 10, 40];
        let mut counts = [0u32; 3];
        for sequence in 0..10_000 {
            counts[booking_operator(sequence, &lots_before, 100)] += 1;
        }
        assert!((900..1_100).contains(&counts[0]) && (2_800..3_200).contains(&counts[1]), "{counts:?}");
        assert_eq!(counts.iter().sum::<u32>(), 10_000);
    }

    #[test]
    fn a_booking_is_on_one_of_its_operators_lots() {
        assert!((0..1000).all(|sequence| {
            let lot = booking(100, sequence)["lot_external_id"].as_str().unwrap()[4..].parse::<u32>().unwrap();
            (1..=1000).contains(&lot)
        }));
    }

    #[test]
    fn fractions_spread_over_the_unit_interval() {
        let values: Vec<f64> = (0..10_000).map(|i| fraction(i, 3)).collect();
        assert!(values.iter().all(|v| (0.0..1.0).contains(v)));
        let below_half = values.iter().filter(|v| **v < 0.5).count();
        assert!((4_800..5_200).contains(&below_half), "{below_half}");
    }
}
