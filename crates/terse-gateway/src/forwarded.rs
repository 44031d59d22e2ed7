//! The forwarding headers the upstream gets, and the proxies trusted to
//! have set them.
//!
//! An anonymous client can write `X-Forwarded-For: 10.0.0.1` or
//! `X-Real-IP` itself; an upstream that believes it grants that client
//! whatever it grants its internal network. So unless the peer is a proxy
//! named in [`TrustedProxies`], every client-sent `X-Forwarded-*`,
//! `Forwarded` and `X-Real-IP` is dropped and replaced by what the gateway
//! saw itself, and the other headers frameworks and libraries read a
//! client's address, scheme or URL from ([`UNTRUSTED_HEADERS`]) are dropped. Their
//! underscore spellings (`X_Forwarded_For`) never get this far: see
//! [`crate::remove_underscored`].

use std::cell::RefCell;
use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use http::header::{FORWARDED, HeaderName};
use http::{HeaderMap, HeaderValue};

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
const X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
const X_FORWARDED_HOST: HeaderName = HeaderName::from_static("x-forwarded-host");
const X_REAL_IP: HeaderName = HeaderName::from_static("x-real-ip");

/// Defines [`UNTRUSTED_HEADERS`] and `untrusted_name`, which tells the
/// same names from a name's text with a `match` (its length, then a
/// comparison or two) rather than 23 comparisons of `HeaderName`s, made
/// for every header of every request: one list for both.
macro_rules! untrusted_headers {
    ($(#[$doc:meta])* $count:literal; [$($name:literal),* $(,)?]) => {
        $(#[$doc])*
        pub const UNTRUSTED_HEADERS: [HeaderName; $count] = [$(HeaderName::from_static($name)),*];

        /// Whether `name` is one of [`UNTRUSTED_HEADERS`].
        fn untrusted_name(name: &str) -> bool {
            matches!(name, $($name)|*)
        }
    };
}

untrusted_headers! {
    /// The headers besides `X-Forwarded-*`, `Forwarded` and `X-Real-IP` that
    /// only a trusted proxy may send, dropped from every other client
    /// (`[gateway] untrusted_headers` adds names to the list, see
    /// [`Upstream::untrusted_headers`](crate::Upstream::untrusted_headers)):
    ///
    /// - a client's address, read by frameworks and libraries (Rails'
    ///   `Client-IP`, the lists of Express's `request-ip` and PHP's usual
    ///   `HTTP_*` checks) and set by CDNs and cloud proxies (Cloudflare,
    ///   Fastly, Akamai, Azure Front Door, App Engine, Envoy, Blue Coat's
    ///   `X-ProxyUser-Ip`);
    /// - the scheme the client used (`Front-End-Https`, `X-Url-Scheme`,
    ///   `X-Scheme`), which decides secure cookies and redirects to https;
    /// - the URL the client asked for, which IIS, Symfony, Zend and Laminas
    ///   route by instead of the request line (`X-Original-URL`,
    ///   `X-Rewrite-URL`, `X-Original-URI`, Envoy's `X-Envoy-Original-Path`):
    ///   from a client, a path the gateway never saw, past any rule it keeps;
    /// - Envoy's `X-Envoy-Internal`, which marks a request as from inside.
    23;
    [
        "true-client-ip",
        "x-client-ip",
        "x-cluster-client-ip",
        "x-forwarded",
        "client-ip",
        "forwarded-for",
        "cf-connecting-ip",
        "fastly-client-ip",
        "x-appengine-user-ip",
        "x-original-forwarded-for",
        "akamai-client-ip",
        "x-proxyuser-ip",
        "x-azure-clientip",
        "x-azure-socketip",
        "x-envoy-external-address",
        "x-envoy-internal",
        "front-end-https",
        "x-url-scheme",
        "x-scheme",
        "x-original-url",
        "x-rewrite-url",
        "x-original-uri",
        "x-envoy-original-path",
    ]
}

/// Most networks in a [`TrustedProxies`] list.
pub const MAX_TRUSTED_PROXIES: usize = 256;

/// The networks (CIDR blocks such as `10.0.0.0/8` or `::1/128`; a bare
/// address is a block of one) whose forwarding headers the gateway keeps
/// and appends to. Empty by default: no one is trusted.
///
/// ```
/// use terse_gateway::TrustedProxies;
///
/// let trusted: TrustedProxies = "10.0.0.0/8, ::1".parse()?;
/// assert!(trusted.contains([10, 1, 2, 3].into()));
/// assert!(trusted.contains("::1".parse()?));
/// assert!(!trusted.contains([192, 168, 0, 1].into()));
/// assert!("10.0.0.0/33".parse::<TrustedProxies>().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<(IpAddr, u8)>);

/// Why a [`TrustedProxies`] list was refused.
///
/// ```
/// let err = "nope".parse::<terse_gateway::TrustedProxies>().unwrap_err();
/// assert!(err.to_string().contains("nope"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CidrError(String);

impl fmt::Display for CidrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CidrError {}

impl TrustedProxies {
    /// The list of `blocks`, each a CIDR block or an address.
    ///
    /// ```
    /// let trusted = terse_gateway::TrustedProxies::new(["127.0.0.1/32"])?;
    /// assert!(trusted.contains([127, 0, 0, 1].into()));
    /// # Ok::<(), terse_gateway::CidrError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`CidrError`] naming the first block that does not parse, or when
    /// there are more than [`MAX_TRUSTED_PROXIES`].
    pub fn new<'a>(blocks: impl IntoIterator<Item = &'a str>) -> Result<Self, CidrError> {
        let mut list = Vec::new();
        for block in blocks {
            if list.len() == MAX_TRUSTED_PROXIES {
                return Err(CidrError(format!(
                    "more than {MAX_TRUSTED_PROXIES} trusted proxies"
                )));
            }
            list.push(cidr(block.trim())?);
        }
        Ok(TrustedProxies(list))
    }

    /// Whether `ip` is in one of the blocks (an IPv4 address also as the
    /// IPv4-mapped IPv6 address a dual-stack socket reports).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        self.0.iter().any(|&(net, bits)| match (net, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                same_prefix(u32::from(net).into(), u32::from(ip).into(), bits, 32)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                same_prefix(u128::from(net), u128::from(ip), bits, 128)
            }
            _ => false,
        })
    }
}

impl FromStr for TrustedProxies {
    type Err = CidrError;

    /// A comma-separated list of blocks.
    fn from_str(list: &str) -> Result<Self, CidrError> {
        TrustedProxies::new(list.split(',').filter(|b| !b.trim().is_empty()))
    }
}

fn same_prefix(a: u128, b: u128, bits: u8, width: u8) -> bool {
    let shift = u32::from(width - bits);
    // A /0 block shifts by the whole width: everything matches.
    a.checked_shr(shift).unwrap_or(0) == b.checked_shr(shift).unwrap_or(0)
}

fn cidr(block: &str) -> Result<(IpAddr, u8), CidrError> {
    let refuse = || {
        CidrError(format!(
            "{block:?} is not an address or CIDR block such as \"10.0.0.0/8\""
        ))
    };
    let (address, bits) = match block.split_once('/') {
        Some((address, bits)) => (address, Some(bits)),
        None => (block, None),
    };
    let ip: IpAddr = address.parse().map_err(|_| refuse())?;
    let width = if ip.is_ipv4() { 32 } else { 128 };
    let bits = match bits {
        Some(bits) => bits
            .parse::<u8>()
            .ok()
            .filter(|&b| b <= width)
            .ok_or_else(refuse)?,
        None => width,
    };
    Ok((ip, bits))
}

/// Whether a request header named `name` is one that only a trusted proxy
/// may send: `X-Forwarded-*`, `Forwarded`, `X-Real-IP`, every
/// [`UNTRUSTED_HEADERS`] header and every one of `also`. From anyone else
/// such headers are dropped before [`add_forwarded`] sets its own.
pub(crate) fn untrusted(name: &HeaderName, also: &[HeaderName]) -> bool {
    let text = name.as_str();
    text.starts_with("x-forwarded-")
        || untrusted_name(text)
        || name == FORWARDED
        || name == X_REAL_IP
        || also.contains(name)
}

/// Sets the forwarding headers for a request from `client` (the peer)
/// that asked for `host`. From a trusted proxy (`from_proxy`) the
/// client's chain is kept and the peer appended to `X-Forwarded-For`; from
/// anyone else the [`untrusted`] headers must have been dropped already
/// (in the one pass over the request's headers that drops every header
/// not passed on), and are set anew.
pub(crate) fn add_forwarded(
    headers: &mut HeaderMap,
    client: Option<IpAddr>,
    host: Option<HeaderValue>,
    from_proxy: bool,
) {
    if let Some(ip) = client {
        // Nothing to read from an untrusted client: its list was dropped.
        let previous: Vec<&str> = match from_proxy {
            true => headers
                .get_all(&X_FORWARDED_FOR)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect(),
            false => Vec::new(),
        };
        // The address written once, shared by both headers when alone.
        let address = address_value(ip);
        let list = if previous.is_empty() {
            address.clone()
        } else {
            HeaderValue::try_from(format!("{}, {ip}", previous.join(", "))).ok()
        };
        if let Some(value) = list {
            headers.insert(X_FORWARDED_FOR, value);
        }
        if !from_proxy {
            if let Some(value) = address {
                headers.insert(X_REAL_IP, value);
            }
        }
    }
    // A trusted proxy knows the scheme and host its client used.
    if !(from_proxy && headers.contains_key(X_FORWARDED_PROTO)) {
        headers.insert(X_FORWARDED_PROTO, HeaderValue::from_static("http"));
    }
    if !(from_proxy && headers.contains_key(X_FORWARDED_HOST)) {
        match host {
            Some(host) => {
                headers.insert(X_FORWARDED_HOST, host);
            }
            None => {
                headers.remove(X_FORWARDED_HOST);
            }
        }
    }
}

thread_local! {
    /// The client address last written on this thread, with its value: the
    /// requests of a keep-alive connection all come from one address, and
    /// a clone of the value shares its bytes where writing it again would
    /// allocate them (twice, as both headers take it).
    static LAST_ADDRESS: RefCell<Option<(IpAddr, HeaderValue)>> = const { RefCell::new(None) };
}

/// `ip` as a header value, the one last written on this thread when it is
/// for the same address.
fn address_value(ip: IpAddr) -> Option<HeaderValue> {
    let cached = LAST_ADDRESS.try_with(|last| {
        let mut last = last.try_borrow_mut().ok()?;
        if let Some((at, value)) = last.as_ref() {
            if *at == ip {
                return Some(value.clone());
            }
        }
        let value = write_address(ip)?;
        *last = Some((ip, value.clone()));
        Some(value)
    });
    // A thread whose locals are gone writes it each time.
    cached.unwrap_or_else(|_| write_address(ip))
}

/// `ip` as a header value. An IPv4 address (most clients) is written by
/// hand: `IpAddr`'s `Display` goes through the formatting machinery, some
/// 1 300 instructions a request.
fn write_address(ip: IpAddr) -> Option<HeaderValue> {
    let IpAddr::V4(v4) = ip else {
        return HeaderValue::from_maybe_shared(bytes::Bytes::from(ip.to_string())).ok();
    };
    let mut text = [0u8; 15];
    let mut len = 0;
    for (i, octet) in v4.octets().into_iter().enumerate() {
        if i > 0 {
            text[len] = b'.';
            len += 1;
        }
        if octet >= 100 {
            text[len] = b'0' + octet / 100;
            len += 1;
        }
        if octet >= 10 {
            text[len] = b'0' + octet / 10 % 10;
            len += 1;
        }
        text[len] = b'0' + octet % 10;
        len += 1;
    }
    HeaderValue::from_bytes(&text[..len]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_written_as_display_writes_them() {
        for ip in [
            "0.0.0.0",
            "127.0.0.1",
            "10.20.30.40",
            "255.255.255.255",
            "1.100.99.9",
            "::1",
            "2001:db8::8a2e:370:7334",
            "::ffff:10.0.0.1",
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(write_address(ip).unwrap(), ip.to_string().as_str());
            // Twice: written, then the value kept for the address.
            assert_eq!(address_value(ip).unwrap(), ip.to_string().as_str());
            assert_eq!(address_value(ip).unwrap(), ip.to_string().as_str());
        }
    }

    /// What `Upstream` does with a request's forwarding headers.
    fn set_forwarded(
        headers: &mut HeaderMap,
        client: Option<IpAddr>,
        host: Option<HeaderValue>,
        trusted: &TrustedProxies,
        also: &[HeaderName],
    ) {
        let from_proxy = client.is_some_and(|ip| trusted.contains(ip));
        if !from_proxy {
            crate::headers::remove_matching(headers, |name| untrusted(name, also));
        }
        add_forwarded(headers, client, host, from_proxy);
    }

    fn forged() -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.append(X_FORWARDED_FOR, HeaderValue::from_static("10.0.0.1"));
        headers.append(X_FORWARDED_FOR, HeaderValue::from_static("10.0.0.2"));
        headers.insert(X_FORWARDED_PROTO, HeaderValue::from_static("https"));
        headers.insert("x-forwarded-user", HeaderValue::from_static("admin"));
        headers.insert(FORWARDED, HeaderValue::from_static("for=10.0.0.9"));
        headers.insert(X_REAL_IP, HeaderValue::from_static("10.0.0.9"));
        for name in UNTRUSTED_HEADERS {
            headers.insert(name, HeaderValue::from_static("10.6.6.6"));
        }
        headers
    }

    #[test]
    fn an_untrusted_client_has_its_forwarding_headers_replaced() {
        let mut headers = forged();
        let host = Some(HeaderValue::from_static("api.example"));
        set_forwarded(
            &mut headers,
            Some([127, 0, 0, 1].into()),
            host,
            &TrustedProxies::default(),
            &[],
        );
        assert_eq!(headers[X_FORWARDED_FOR], "127.0.0.1");
        assert_eq!(headers.get_all(X_FORWARDED_FOR).iter().count(), 1);
        assert_eq!(headers[X_FORWARDED_PROTO], "http");
        assert_eq!(headers[X_FORWARDED_HOST], "api.example");
        assert_eq!(headers[X_REAL_IP], "127.0.0.1");
        assert!(!headers.contains_key("x-forwarded-user"));
        assert!(!headers.contains_key(FORWARDED));
        for name in UNTRUSTED_HEADERS {
            assert!(!headers.contains_key(&name), "{name}");
        }
    }

    #[test]
    fn a_trusted_proxy_has_its_chain_kept_and_extended() {
        let mut headers = forged();
        let trusted: TrustedProxies = "127.0.0.0/8".parse().unwrap();
        set_forwarded(
            &mut headers,
            Some([127, 0, 0, 1].into()),
            None,
            &trusted,
            &[],
        );
        assert_eq!(headers[X_FORWARDED_FOR], "10.0.0.1, 10.0.0.2, 127.0.0.1");
        assert_eq!(headers[X_FORWARDED_PROTO], "https");
        assert_eq!(headers[X_REAL_IP], "10.0.0.9");
        assert_eq!(headers[FORWARDED], "for=10.0.0.9");
        for name in UNTRUSTED_HEADERS {
            assert_eq!(headers[&name], "10.6.6.6", "{name}");
        }
    }

    #[test]
    fn the_untrusted_names_are_those_of_the_list() {
        for name in UNTRUSTED_HEADERS {
            assert!(untrusted_name(name.as_str()), "{name}");
        }
        for name in ["host", "x-real-ip-not", "client-ips", "x-scheme2", "accept"] {
            assert!(!untrusted_name(name), "{name}");
        }
    }

    #[test]
    fn blocks_match_by_prefix() {
        let trusted: TrustedProxies = "192.168.4.0/22, fd00::/8, 0.0.0.0/0".parse().unwrap();
        assert!(trusted.contains([192, 168, 7, 255].into()));
        assert!(trusted.contains("fd12::1".parse().unwrap()));
        assert!(trusted.contains("::ffff:8.8.8.8".parse().unwrap()));
        assert!(!trusted.contains("fe80::1".parse().unwrap()));
        let narrow: TrustedProxies = "192.168.4.0/22".parse().unwrap();
        assert!(!narrow.contains([192, 168, 8, 0].into()));
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/x", "host", "10.0.0.0/"] {
            assert!(bad.parse::<TrustedProxies>().is_err(), "{bad}");
        }
    }
}
