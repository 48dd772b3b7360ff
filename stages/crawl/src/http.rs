//! HTTP for the package index: JSON documents and archives, with timeouts, a size cap,
//! and the proxy of the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`).
//!
//! ureq 2 reads the proxy variables but not `NO_PROXY`, so this module does: hosts
//! listed there, and loopback hosts always, are reached directly.

use std::io::Read;
use std::time::Duration;

use url::Url;

/// The most a JSON document may weigh (the latest-release document lists every release).
const MAX_JSON_BYTES: u64 = 64 << 20;

/// What went wrong fetching a URL.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{url} answered 404 Not Found")]
    NotFound { url: String },
    #[error("{url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("{url}: {detail}")]
    Transport { url: String, detail: String },
    #[error(
        "{url}: more than {limit} bytes; refused (raise --max-archive-bytes if it is genuine)"
    )]
    TooLarge { url: String, limit: u64 },
    #[error("{url}: reading the answer failed: {detail}")]
    Read { url: String, detail: String },
}

/// An HTTP client that honours the environment's proxy settings.
pub struct Http {
    direct: ureq::Agent,
    proxied: ureq::Agent,
    no_proxy: Vec<String>,
}

impl Default for Http {
    fn default() -> Self {
        Self::new()
    }
}

impl Http {
    pub fn new() -> Self {
        let builder = || {
            ureq::AgentBuilder::new()
                .timeout_connect(Duration::from_secs(30))
                .timeout_read(Duration::from_secs(90))
                .user_agent(concat!("freshbench-crawl/", env!("CARGO_PKG_VERSION")))
        };
        let no_proxy = ["NO_PROXY", "no_proxy"]
            .iter()
            .filter_map(|k| std::env::var(k).ok())
            .flat_map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_ascii_lowercase())
                    .collect::<Vec<_>>()
            })
            .filter(|s| !s.is_empty())
            .collect();
        Http {
            direct: builder().try_proxy_from_env(false).build(),
            proxied: builder().try_proxy_from_env(true).build(),
            no_proxy,
        }
    }

    fn agent(&self, url: &Url) -> &ureq::Agent {
        let host = url
            .host_str()
            .unwrap_or("")
            .trim_matches(['[', ']'])
            .to_ascii_lowercase();
        if bypasses_proxy(&host, &self.no_proxy) {
            &self.direct
        } else {
            &self.proxied
        }
    }

    fn get(&self, url: &Url) -> Result<ureq::Response, FetchError> {
        match self.agent(url).request_url("GET", url).call() {
            Ok(resp) => Ok(resp),
            Err(ureq::Error::Status(404, _)) => Err(FetchError::NotFound {
                url: url.to_string(),
            }),
            Err(ureq::Error::Status(status, _)) => Err(FetchError::Status {
                url: url.to_string(),
                status,
            }),
            Err(ureq::Error::Transport(t)) => Err(FetchError::Transport {
                url: url.to_string(),
                detail: t.to_string(),
            }),
        }
    }

    /// Fetches a JSON document; returns it with the URL it finally came from (after
    /// redirects), against which relative links in it are resolved.
    pub fn get_json(&self, url: &Url) -> Result<(serde_json::Value, Url), FetchError> {
        let resp = self.get(url)?;
        let final_url = Url::parse(resp.get_url()).unwrap_or_else(|_| url.clone());
        let body = read_capped(resp, url, MAX_JSON_BYTES)?;
        let value = serde_json::from_slice(&body).map_err(|e| FetchError::Read {
            url: url.to_string(),
            detail: format!("not JSON ({e})"),
        })?;
        Ok((value, final_url))
    }

    /// Fetches bytes, at most `limit` of them.
    pub fn get_bytes(&self, url: &Url, limit: u64) -> Result<Vec<u8>, FetchError> {
        read_capped(self.get(url)?, url, limit)
    }
}

fn read_capped(resp: ureq::Response, url: &Url, limit: u64) -> Result<Vec<u8>, FetchError> {
    let mut body = Vec::new();
    resp.into_reader()
        .take(limit.saturating_add(1))
        .read_to_end(&mut body)
        .map_err(|e| FetchError::Read {
            url: url.to_string(),
            detail: e.to_string(),
        })?;
    if body.len() as u64 > limit {
        return Err(FetchError::TooLarge {
            url: url.to_string(),
            limit,
        });
    }
    Ok(body)
}

/// Whether `host` is reached without the proxy: loopback, or matched by a `NO_PROXY`
/// entry (`*`, a host, or a domain with or without a leading dot).
pub fn bypasses_proxy(host: &str, no_proxy: &[String]) -> bool {
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    loopback
        || no_proxy.iter().any(|entry| {
            let domain = entry.trim_start_matches("*.").trim_start_matches('.');
            entry == "*" || host == domain || host.ends_with(&format!(".{domain}"))
        })
}

#[cfg(test)]
mod tests {
    use super::bypasses_proxy;

    #[test]
    fn no_proxy_rules() {
        let np = vec!["example.com".to_string(), ".corp".to_string()];
        assert!(bypasses_proxy("127.0.0.1", &[]));
        assert!(bypasses_proxy("::1", &[]));
        assert!(bypasses_proxy("localhost", &[]));
        assert!(bypasses_proxy("pypi.example.com", &np));
        assert!(bypasses_proxy("example.com", &np));
        assert!(bypasses_proxy("a.corp", &np));
        assert!(!bypasses_proxy("pypi.org", &np));
        assert!(!bypasses_proxy("badexample.com", &np));
        assert!(bypasses_proxy("pypi.org", &["*".to_string()]));
    }
}
