//! Fixed-capacity ring buffer that overwrites the oldest element when full.

use std::collections::VecDeque;

pub struct RingBuffer<T> {
    items: VecDeque<T>,
    capacity: usize,
}

impl<T> RingBuffer<T> {
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "capacity must be positive");
        RingBuffer { items: VecDeque::with_capacity(capacity), capacity }
    }

    /// Append `item`; returns the element that was evicted, if any.
    pub fn push(&mut self, item: T) -> Option<T> {
        let evicted = if self.items.len() == self.capacity {
            self.items.pop_front()
        } else {
            None
        };
        self.items.push_back(item);
        evicted
    }

    /// Remove and return the oldest element.
    pub fn pop(&mut self) -> Option<T> {
        self.items.pop_front()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn is_full(&self) -> bool {
        self.items.len() == self.capacity
    }

    /// Oldest to newest.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_up_to_capacity() {
        let mut r = RingBuffer::new(3);
        assert!(r.is_empty());
        assert_eq!(r.push(1), None);
        assert_eq!(r.push(2), None);
        assert_eq!(r.push(3), None);
        assert!(r.is_full());
        assert_eq!(r.len(), 3);
    }

    #[test]
    fn overwrites_oldest() {
        let mut r = RingBuffer::new(2);
        r.push('a');
        r.push('b');
        assert_eq!(r.push('c'), Some('a'));
        assert_eq!(r.iter().copied().collect::<String>(), "bc");
    }

    #[test]
    fn pop_is_fifo() {
        let mut r = RingBuffer::new(4);
        for i in 0..6 {
            r.push(i);
        }
        assert_eq!(r.pop(), Some(2));
        assert_eq!(r.pop(), Some(3));
        assert_eq!(r.len(), 2);
    }

    #[test]
    #[should_panic(expected = "capacity must be positive")]
    fn zero_capacity_panics() {
        let _ = RingBuffer::<u8>::new(0);
    }
}
