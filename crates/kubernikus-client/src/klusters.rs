//! The kluster operations: list (with Mission Control's list query), get, create, update
//! (optionally only while the kluster is at a resource version), terminate, events,
//! credentials, info, termination protection.

use keystone::TokenSecret;
use kluster::listing::{ListQuery, TOTAL_HEADER};
use kluster::{Credentials, Event, Kluster, KlusterInfo};
use reqwest::Method;

use crate::{decode, percent_encode, Client, Error};

/// A kluster's resource version as the API handed it out (digits only): what `If-Match`
/// names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version(String);

impl Version {
    /// `v` when it is a resource version the API hands out (1–20 digits), else `None`
    /// (e.g. a tampered form field).
    pub fn parse(v: &str) -> Option<Version> {
        let ok = !v.is_empty() && v.len() <= 20 && v.bytes().all(|b| b.is_ascii_digit());
        ok.then(|| Version(v.to_string()))
    }

    /// The version as the API spells it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A listing whose page is decoded as `T` (e.g. `Vec` of a type with only the fields its
/// reader uses, or a [`crate::JsonArray`] to pass on), or, when the API did not apply the
/// list query, every kluster in full (to search, sort and page here).
#[derive(Clone, Debug, PartialEq)]
pub enum Listing<T> {
    /// The API applied the query: the page's klusters and how many match in all.
    Paged {
        /// The page's klusters.
        items: T,
        /// How many match the query in all.
        total: usize,
    },
    /// The API answered every kluster (a real Kubernikus ignores the extension).
    All(Vec<Kluster>),
}

impl<T> Listing<T> {
    /// The same listing, a page's items made into `f(items)`.
    pub fn map_items<U>(self, f: impl FnOnce(T) -> U) -> Listing<U> {
        match self {
            Listing::Paged { items, total } => Listing::Paged {
                items: f(items),
                total,
            },
            Listing::All(all) => Listing::All(all),
        }
    }
}

impl Client {
    /// `GET /api/v1/clusters`: the project's klusters.
    pub async fn list(&self, token: &TokenSecret) -> Result<Vec<Kluster>, Error> {
        self.call(Method::GET, token, "/api/v1/clusters", None::<&()>)
            .await
    }

    /// The answer to the list query `q` and its `X-Total-Count`, if the API applied it.
    async fn list_answer(
        &self,
        token: &TokenSecret,
        q: &ListQuery,
    ) -> Result<(reqwest::Response, Option<usize>), Error> {
        let pairs = q.to_pairs();
        let query = crate::query_string(pairs.iter().map(|(k, v)| (*k, v.as_str())));
        let path = format!("/api/v1/clusters{query}");
        let resp = self
            .send(Method::GET, token, &path, None::<&()>, &[])
            .await?;
        let total = resp
            .headers()
            .get(TOTAL_HEADER)
            .and_then(|v| v.to_str().ok()?.trim().parse().ok());
        Ok((resp, total))
    }

    /// `GET /api/v1/clusters?q=&phase=&sort=&limit=&offset=` (the list query extension): a
    /// page of the project's klusters, decoded as `T`, and how many match. `T` is a `Vec` of
    /// a type with only the fields the caller reads (several times faster to decode than
    /// whole klusters; the fields it does not name are ignored), or a [`crate::JsonArray`]
    /// to pass on undecoded. Every kluster in full when the API did not apply the query
    /// ([`Listing`]).
    pub async fn list_page<T: serde::de::DeserializeOwned>(
        &self,
        token: &TokenSecret,
        q: &ListQuery,
    ) -> Result<Listing<T>, Error> {
        let (resp, total) = self.list_answer(token, q).await?;
        Ok(match total {
            Some(total) => Listing::Paged {
                items: decode(resp).await?,
                total,
            },
            None => Listing::All(decode(resp).await?),
        })
    }

    /// `GET /api/v1/clusters/{name}`.
    pub async fn get(&self, token: &TokenSecret, name: &str) -> Result<Kluster, Error> {
        let path = kluster_path(name, "");
        self.call(Method::GET, token, &path, None::<&()>).await
    }

    /// `POST /api/v1/clusters`: creates `k`; the kluster as stored.
    pub async fn create(&self, token: &TokenSecret, k: &Kluster) -> Result<Kluster, Error> {
        self.call(Method::POST, token, "/api/v1/clusters", Some(k))
            .await
    }

    /// `PUT /api/v1/clusters/{name}`: changes the kluster to `k`'s spec (the last write
    /// wins, as with Kubernikus); as stored.
    pub async fn update(&self, token: &TokenSecret, k: &Kluster) -> Result<Kluster, Error> {
        self.update_if(token, k, None).await
    }

    /// [`Self::update`] only while the kluster is still at resource version `version`
    /// (`If-Match`; otherwise the API answers 412: [`Error::Stale`]). `None` writes
    /// unconditionally.
    pub async fn update_if(
        &self,
        token: &TokenSecret,
        k: &Kluster,
        version: Option<&Version>,
    ) -> Result<Kluster, Error> {
        let path = kluster_path(&k.name, "");
        let headers: Vec<_> = version
            .map(|v| ("if-match", format!("\"{}\"", v.as_str())))
            .into_iter()
            .collect();
        let resp = self
            .send(Method::PUT, token, &path, Some(k), &headers)
            .await?;
        decode(resp).await
    }

    /// `DELETE /api/v1/clusters/{name}`: starts the kluster's termination.
    pub async fn terminate(&self, token: &TokenSecret, name: &str) -> Result<(), Error> {
        let path = kluster_path(name, "");
        self.send(Method::DELETE, token, &path, None::<&()>, &[])
            .await
            .map(drop)
    }

    /// `PUT /api/v1/clusters/{name}/termination-protection` `{"enabled": …}` (extension):
    /// turns the kluster's termination protection on or off. A 404 for a kluster that
    /// exists means the API has no such route: [`Error::NotOffered`].
    pub async fn set_termination_protection(
        &self,
        token: &TokenSecret,
        name: &str,
        enabled: bool,
    ) -> Result<(), Error> {
        let path = kluster_path(name, "/termination-protection");
        let body = serde_json::json!({ "enabled": enabled });
        match self.send(Method::PUT, token, &path, Some(&body), &[]).await {
            Ok(_) => Ok(()),
            Err(e) if e.status() == Some(404) => match self.get(token, name).await {
                // The kluster is there: the route is not.
                Ok(_) => Err(Error::NotOffered("termination protection")),
                Err(_) => Err(e),
            },
            Err(e) => Err(e),
        }
    }

    /// `GET /api/v1/clusters/{name}/events`: the kluster's events, oldest first.
    pub async fn events(&self, token: &TokenSecret, name: &str) -> Result<Vec<Event>, Error> {
        let path = kluster_path(name, "/events");
        self.call(Method::GET, token, &path, None::<&()>).await
    }

    /// `GET /api/v1/clusters/{name}/credentials`: a kubeconfig signed for the caller.
    pub async fn credentials(&self, token: &TokenSecret, name: &str) -> Result<Credentials, Error> {
        let path = kluster_path(name, "/credentials");
        self.call(Method::GET, token, &path, None::<&()>).await
    }

    /// `GET /api/v1/clusters/{name}/info`: the setup command and binaries.
    pub async fn info(&self, token: &TokenSecret, name: &str) -> Result<KlusterInfo, Error> {
        let path = kluster_path(name, "/info");
        self.call(Method::GET, token, &path, None::<&()>).await
    }
}

/// The path of kluster `name` (percent-encoded: a name cannot reach another path) and
/// `rest`.
pub(crate) fn kluster_path(name: &str, rest: &str) -> String {
    format!("/api/v1/clusters/{}{rest}", percent_encode(name))
}

#[cfg(test)]
mod tests {
    use super::Version;

    #[test]
    fn versions_are_digits_only() {
        assert_eq!(Version::parse("42").map(|v| v.0), Some("42".into()));
        for bad in ["", "4 2", "\"1\"", "1\r\nx: y", &"9".repeat(21)] {
            assert_eq!(Version::parse(bad), None, "{bad:?}");
        }
    }
}
