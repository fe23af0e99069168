//! What this build is and when it wrote a file: the version, the git
//! commit (recorded by `build.rs`) and the UTC date, as certificates and
//! census tables state them in their provenance.

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git commit this octal was built from (`unknown` outside git).
pub const COMMIT: &str = env!("OCTAL_COMMIT");

/// Now, in UTC, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc_date(secs)
}

/// Today in UTC, `YYYY-MM-DD`.
pub fn utc_today() -> String {
    utc_now()[..10].to_string()
}

/// Seconds since 1970 as an ISO 8601 UTC date (days to a civil date as in
/// H. Hinnant's `civil_from_days`).
pub fn utc_date(secs: u64) -> String {
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_from_hand_worked_days() {
        // 0 s is the epoch; 951_782_400 s is 2000-02-29 (a leap day:
        // 11,016 days after 1970-01-01); one second before 2001 ends 2000.
        assert_eq!(super::utc_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::utc_date(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(super::utc_date(978_307_199), "2000-12-31T23:59:59Z");
    }
}
