use std::collections::HashMap;

/// Groups events by the day they start on, keeping insertion order per day.
pub fn group_by_day(events: &[Event]) -> HashMap<NaiveDate, Vec<&Event>> {
    let mut days: HashMap<NaiveDate, Vec<&Event>> = HashMap::with_capacity(events.len() / 4);
    for event in events {
        let day = event.start_at.date_naive();
        days.entry(day).or_default().push(event);
    }
    for list in days.values_mut() {
        list.sort_by_key(|e| (e.start_at, e.id));
    }
    days
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{} {}", self.start_at.format("%H:%M"), self.end_at.format("%H:%M"), self.title)?;
        if let Some(location) = &self.location {
            write!(f, " [{location}]")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn empty_input_gives_no_days() {
        assert!(super::group_by_day(&[]).is_empty());
    }
}
