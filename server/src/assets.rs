//! The built site's files, served the way a CDN serves them: under `/pkg` the brotli or
//! gzip variant written at build time (`cargo leptos build --precompress`) when the browser
//! accepts it, `Cache-Control: public, max-age=31536000, immutable` on the files whose names
//! carry the build's content hash (`hash-files`), `no-cache` (revalidate) on anything else.
//!
//! cargo-leptos writes the hashes to `hash.txt` next to the server binary; Leptos reads the
//! hashed names from there when it renders the script and stylesheet links. The server uses
//! that file only when the site it serves holds the files it names (a site from another
//! build would otherwise get links to files it does not have).

use std::path::{Path, PathBuf};

use axum::{
    extract::Request,
    http::{header, HeaderValue, Method, StatusCode},
    middleware::Next,
    response::Response,
    Router,
};
use tower_http::services::ServeDir;

/// Cache policy of a file whose name changes whenever its content does.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Cache policy of every other static answer: keep, but ask again before using it.
pub const REVALIDATE: &str = "no-cache";

/// Length of cargo-leptos's content hashes in file names (MD5, base64url, unpadded).
const HASH_LEN: usize = 22;

/// The hash file of the build next to the running binary, when `site_root`'s package
/// directory holds the JS and WASM it names; `None` for a site built without hashes.
pub fn hash_file(site_root: &Path, pkg_dir: &str, output_name: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let path = exe.parent()?.join("hash.txt");
    let text = std::fs::read_to_string(&path).ok()?;
    match built_names(&text, output_name) {
        Some(names)
            if names
                .iter()
                .all(|n| site_root.join(pkg_dir).join(n).is_file()) =>
        {
            Some(path)
        }
        _ => {
            tracing::warn!(
                hash_file = %path.display(),
                site_root = %site_root.display(),
                "the hash file next to the binary names files the site does not have \
                 (a site from another build?): serving unhashed names; rebuild the site"
            );
            None
        }
    }
}

/// The hashed JS and WASM file names a hash file (`js: <hash>` lines) names.
fn built_names(hash_file: &str, output_name: &str) -> Option<[String; 2]> {
    let hash = |kind: &str| {
        hash_file.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == kind && is_hash(v.trim())).then(|| v.trim().to_string())
        })
    };
    Some([
        format!("{output_name}.{}.js", hash("js")?),
        format!("{output_name}.{}.wasm", hash("wasm")?),
    ])
}

/// Whether `s` looks like one of cargo-leptos's content hashes.
fn is_hash(s: &str) -> bool {
    s.len() == HASH_LEN
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Whether a file name carries a content hash: `<stem>.<hash>.<ext>`.
pub fn is_hashed_name(name: &str) -> bool {
    let mut parts = name.rsplitn(3, '.');
    let (Some(_ext), Some(hash), Some(stem)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !stem.is_empty() && is_hash(hash)
}

/// The `/pkg` service: the files of `site_root/pkg_dir`, precompressed variants preferred,
/// immutable when `hashed` (the site was built with hashes) and the name carries one.
pub fn pkg_service(site_root: &Path, pkg_dir: &str, hashed: bool) -> Router {
    let files = ServeDir::new(site_root.join(pkg_dir))
        .precompressed_br()
        .precompressed_gzip();
    Router::new()
        .fallback_service(files)
        .layer(axum::middleware::from_fn(
            move |req: Request, next: Next| cache_headers(hashed, req, next),
        ))
}

/// The site's other static files (`site_root/favicon.svg` and the like) for a GET or HEAD,
/// precompressed variants preferred, `no-cache`; `None` when there is no such file (the
/// caller renders the 404 page). Served here rather than by Leptos's `file_and_error_handler`:
/// its file branch makes a reactive owner under whatever owner the worker thread last ran
/// and applies the response options it finds there, which can be a page render's: the
/// favicon then took the page's headers, and the page went out without its
/// Content-Security-Policy (issue 33: 398 of 3,000 favicons under load, seen on a release
/// build).
pub async fn site_file(site_root: &Path, req: &http::request::Parts) -> Option<Response> {
    use tower::ServiceExt;
    if !matches!(req.method, Method::GET | Method::HEAD) {
        return None;
    }
    let mut probe = Request::builder()
        .method(req.method.clone())
        .uri(req.uri.clone());
    for name in [
        header::ACCEPT_ENCODING,
        header::IF_MODIFIED_SINCE,
        header::RANGE,
    ] {
        if let Some(v) = req.headers.get(&name) {
            probe = probe.header(name, v);
        }
    }
    let probe = probe.body(axum::body::Body::empty()).ok()?;
    let files = ServeDir::new(site_root)
        .precompressed_br()
        .precompressed_gzip()
        .append_index_html_on_directories(false);
    let res = match files.oneshot(probe).await {
        Ok(res) => res,
        Err(never) => match never {},
    };
    let status = res.status();
    if !(status.is_success() || status == StatusCode::NOT_MODIFIED) {
        return None;
    }
    let mut res = res.map(axum::body::Body::new);
    set_cache(&mut res, REVALIDATE);
    Some(res)
}

/// Middleware of [`pkg_service`]: `Cache-Control` by name, and `Vary: Accept-Encoding`
/// (the answer depends on it once precompressed variants exist).
async fn cache_headers(hashed: bool, req: Request, next: Next) -> Response {
    let immutable = hashed && {
        let name = req.uri().path().rsplit('/').next().unwrap_or_default();
        is_hashed_name(name)
    };
    let mut res = next.run(req).await;
    let ok = res.status().is_success() || res.status() == StatusCode::NOT_MODIFIED;
    let policy = if immutable && ok {
        IMMUTABLE
    } else {
        REVALIDATE
    };
    set_cache(&mut res, policy);
    res
}

/// Sets a static answer's `Cache-Control` to `policy`, and `Vary: Accept-Encoding` (the
/// answer depends on it once precompressed variants exist).
fn set_cache(res: &mut Response, policy: &'static str) {
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    h.append(
        header::VARY,
        HeaderValue::from_static(header::ACCEPT_ENCODING.as_str()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use tower::ServiceExt;

    const H: &str = "AbCdEfGhIjKlMnOpQrSt-_";

    #[test]
    fn hashed_names_are_recognised() {
        assert!(is_hashed_name(&format!("mission-control.{H}.wasm")));
        assert!(is_hashed_name(&format!("__wasm_split.{H}.js")));
        assert!(!is_hashed_name("mission-control.wasm"));
        assert!(!is_hashed_name("mission-control.js.br"));
        assert!(!is_hashed_name(&format!(".{H}.js")), "no stem");
        assert!(
            !is_hashed_name("mission-control.AbCdEfGhIjKlMnOpQrSt.js"),
            "too short"
        );
        assert!(!is_hashed_name("mission-control.AbCdEfGhIjKlMnOpQrS/t_.js"));
    }

    #[test]
    fn the_hash_file_names_the_js_and_wasm() {
        let text = format!("js: {H}\nwasm: {H}\ncss: {H}\nsplit: {H}\n");
        let [js, wasm] = built_names(&text, "mc").expect("names");
        assert_eq!(js, format!("mc.{H}.js"));
        assert_eq!(wasm, format!("mc.{H}.wasm"));
        assert!(built_names("css: x\n", "mc").is_none());
        assert!(built_names("js: not-a-hash\nwasm: also-not\n", "mc").is_none());
    }

    /// A site root with a hashed WASM (and its br variant), an unhashed file.
    fn site() -> PathBuf {
        let root = std::env::temp_dir().join(format!("mc-assets-{}", std::process::id()));
        let pkg = root.join("pkg");
        std::fs::create_dir_all(&pkg).expect("temp dir");
        std::fs::write(pkg.join(format!("mc.{H}.wasm")), b"plain wasm").expect("write");
        std::fs::write(pkg.join(format!("mc.{H}.wasm.br")), b"brotli wasm").expect("write");
        std::fs::write(pkg.join("loose.js"), b"js").expect("write");
        root
    }

    async fn get(
        svc: &Router,
        path: &str,
        accept: &str,
    ) -> (StatusCode, Vec<(String, String)>, String) {
        let req = Request::get(path)
            .header(header::ACCEPT_ENCODING, accept)
            .body(Body::empty())
            .expect("request");
        let res = svc.clone().oneshot(req).await.expect("infallible");
        let status = res.status();
        let headers = res
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
            .collect();
        let body = axum::body::to_bytes(res.into_body(), 1 << 20)
            .await
            .expect("body");
        (status, headers, String::from_utf8_lossy(&body).into_owned())
    }

    fn header<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
        h.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    #[tokio::test]
    async fn hashed_files_are_immutable_and_precompressed_others_revalidate() {
        let root = site();
        let svc = pkg_service(&root, "pkg", true);
        let wasm = format!("/mc.{H}.wasm");

        let (s, h, body) = get(&svc, &wasm, "gzip, deflate, br").await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(body, "brotli wasm", "the build's br variant");
        assert_eq!(header(&h, "content-encoding"), Some("br"));
        assert_eq!(header(&h, "cache-control"), Some(IMMUTABLE));
        assert_eq!(header(&h, "vary"), Some("accept-encoding"));

        let (s, h, body) = get(&svc, &wasm, "identity").await;
        assert_eq!((s, body.as_str()), (StatusCode::OK, "plain wasm"));
        assert_eq!(header(&h, "content-encoding"), None);
        assert_eq!(header(&h, "cache-control"), Some(IMMUTABLE));

        let (s, h, _) = get(&svc, "/loose.js", "br").await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            header(&h, "cache-control"),
            Some(REVALIDATE),
            "name without a hash"
        );

        let (s, h, _) = get(&svc, &format!("/gone.{H}.wasm"), "br").await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(
            header(&h, "cache-control"),
            Some(REVALIDATE),
            "a 404 is not kept"
        );

        // A site built without hashes: nothing is immutable, whatever its name.
        let svc = pkg_service(&root, "pkg", false);
        let (_, h, _) = get(&svc, &wasm, "br").await;
        assert_eq!(header(&h, "cache-control"), Some(REVALIDATE));
        let _ = std::fs::remove_dir_all(root);
    }
}
