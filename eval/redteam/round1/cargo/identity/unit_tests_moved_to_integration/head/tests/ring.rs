use ringbuf_mini::RingBuffer;

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
