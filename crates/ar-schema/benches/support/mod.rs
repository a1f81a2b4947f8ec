//! Deterministic benchmark inputs, shared by `benches/infer.rs` and `examples/bench_inputs.rs`.
//!
//! The classic JSON benchmark files (twitter.json, citm_catalog.json, canada.json) cannot be
//! downloaded here, so these generators produce structurally similar documents: a search API
//! response with nested users and entities, a catalog of id-keyed maps, and a GeoJSON polygon of
//! floats. Plus the body `ar` sees most: a paginated REST list response, at 1 MB and 50 MB, and
//! many small JSON Lines samples. A fixed xorshift seed makes every run produce the same bytes.

#![allow(dead_code)]

use std::fmt::Write as _;

/// A tiny deterministic PRNG (xorshift64*).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed | 1)
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub(crate) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const FIRST: &[&str] = &[
    "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Linus",
];
const LAST: &[&str] = &[
    "Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Perlman",
];
const WORDS: &[&str] = &[
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "API",
    "schema",
    "café",
    "naïve",
    "\\\"quoted\\\"",
    "line\\nbreak",
    "emoji \\ud83d\\ude00",
    "tab\\there",
    "über",
    "日本語",
];
const CITIES: &[&str] = &[
    "Paris",
    "Berlin",
    "Lisbon",
    "Montréal",
    "Osaka",
    "Nairobi",
    "Lima",
];

fn sentence(r: &mut Rng, words: u64) -> String {
    (0..words)
        .map(|_| r.pick(WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

fn uuid(r: &mut Rng) -> String {
    let a = r.next();
    let b = r.next();
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

fn date_time(r: &mut Rng) -> String {
    format!(
        "2024-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        r.below(12) + 1,
        r.below(28) + 1,
        r.below(24),
        r.below(60),
        r.below(60)
    )
}

fn user(out: &mut String, r: &mut Rng, id: u64) {
    let first = r.pick(FIRST);
    let last = r.pick(LAST);
    let _ = write!(
        out,
        r#"{{"id":{id},"uuid":"{}","login":"{}{id}","name":"{first} {last}","email":"{}.{}@example.com","created_at":"{}","updated_at":{},"active":{},"score":{}.{},"role":"{}","avatar_url":"https://cdn.example.com/avatars/{id}.png","bio":"{}","#,
        uuid(r),
        first.to_lowercase(),
        first.to_lowercase(),
        last.to_lowercase(),
        date_time(r),
        if r.chance(30) {
            "null".to_string()
        } else {
            format!("\"{}\"", date_time(r))
        },
        r.chance(80),
        r.below(100),
        r.below(100),
        r.pick(&["admin", "member", "guest"]),
        sentence(r, 8),
    );
    out.push_str(r#""tags":["#);
    for t in 0..r.below(5) {
        if t > 0 {
            out.push(',');
        }
        let _ = write!(out, "\"{}\"", r.pick(WORDS));
    }
    let _ = write!(
        out,
        r#"],"address":{{"street":"{} {} St","city":"{}","zip":"{:05}","geo":{{"lat":{}.{:06},"lng":-{}.{:06}}}}},"orders":["#,
        r.below(999) + 1,
        r.pick(LAST),
        r.pick(CITIES),
        r.below(99_999),
        r.below(90),
        r.below(1_000_000),
        r.below(180),
        r.below(1_000_000)
    );
    for o in 0..r.below(4) {
        if o > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            r#"{{"id":{},"total":{}.{:02},"currency":"{}","placed_at":"{}","items":["#,
            r.below(1 << 40),
            r.below(500),
            r.below(100),
            r.pick(&["EUR", "USD", "JPY"]),
            date_time(r)
        );
        for i in 0..r.below(3) + 1 {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                r#"{{"sku":"SKU-{:06}","qty":{},"price":{}.{:02}}}"#,
                r.below(1_000_000),
                r.below(5) + 1,
                r.below(200),
                r.below(100)
            );
        }
        out.push_str("]}");
    }
    out.push_str("]}");
}

/// A paginated REST list response (`{"data": [users...], "meta": ..., "links": ...}`) of about
/// `target` bytes.
pub(crate) fn api_response(target: usize) -> Vec<u8> {
    let mut r = Rng::new(0x5EED_0001);
    let mut out = String::with_capacity(target + 4096);
    out.push_str(r#"{"data":["#);
    let mut id = 1;
    while out.len() < target.saturating_sub(300) {
        if id > 1 {
            out.push(',');
        }
        user(&mut out, &mut r, id);
        id += 1;
    }
    let _ = write!(
        out,
        r#"],"meta":{{"page":1,"per_page":{n},"total":{n},"request_id":"{}"}},"links":{{"self":"https://api.example.com/v1/users?page=1","next":null}}}}"#,
        uuid(&mut r),
        n = id - 1
    );
    out.into_bytes()
}

/// `n` small samples as JSON Lines (one user per line), about 600 bytes each.
pub(crate) fn small_samples(n: usize) -> Vec<u8> {
    let mut r = Rng::new(0x5EED_0002);
    let mut out = String::new();
    for id in 0..n as u64 {
        user(&mut out, &mut r, id);
        out.push('\n');
    }
    out.into_bytes()
}

/// Like twitter.json: a search response with 100 statuses, nested users, entities, many nulls.
pub(crate) fn twitter_like() -> Vec<u8> {
    let mut r = Rng::new(0x5EED_0003);
    let mut out = String::from(r#"{"statuses":["#);
    for s in 0..100u64 {
        if s > 0 {
            out.push(',');
        }
        let id = 505_874_924_095_815_681 + s * 7919;
        let _ = write!(
            out,
            r#"{{"metadata":{{"result_type":"recent","iso_language_code":"ja"}},"created_at":"Sun Aug 31 00:29:{:02} +0000 2014","id":{id},"id_str":"{id}","text":"{}","source":"<a href=\"https://mobile.twitter.com\" rel=\"nofollow\">Mobile Web (M2)</a>","truncated":false,"in_reply_to_status_id":null,"in_reply_to_status_id_str":null,"in_reply_to_user_id":{},"in_reply_to_screen_name":null,"user":{{"id":{},"id_str":"{}","name":"{}","screen_name":"{}","location":"{}","description":"{}","url":null,"entities":{{"description":{{"urls":[]}}}},"protected":false,"followers_count":{},"friends_count":{},"listed_count":{},"created_at":"Mon Jun 24 14:08:{:02} +0000 2013","favourites_count":{},"utc_offset":null,"time_zone":null,"geo_enabled":{},"verified":false,"statuses_count":{},"lang":"ja","contributors_enabled":false,"is_translator":false,"profile_background_color":"C0DEED","profile_image_url":"http://pbs.twimg.com/profile_images/{}/normal.jpeg","profile_image_url_https":"https://pbs.twimg.com/profile_images/{}/normal.jpeg","profile_link_color":"0084B4","profile_use_background_image":true,"default_profile":true,"following":false,"follow_request_sent":false,"notifications":false}},"geo":null,"coordinates":null,"place":null,"contributors":null,"retweet_count":{},"favorite_count":{},"entities":{{"hashtags":[{}],"symbols":[],"urls":[],"user_mentions":[{{"screen_name":"{}","name":"{}","id":{},"id_str":"{}","indices":[0,{}]}}]}},"favorited":false,"retweeted":false,"lang":"ja"}}"#,
            s % 60,
            sentence(&mut r, 14),
            if r.chance(20) {
                r.below(1 << 31).to_string()
            } else {
                "null".into()
            },
            r.below(1 << 31),
            r.below(1 << 31),
            r.pick(FIRST),
            r.pick(LAST),
            r.pick(CITIES),
            sentence(&mut r, 10),
            r.below(5000),
            r.below(5000),
            r.below(50),
            s % 60,
            r.below(9000),
            r.chance(50),
            r.below(90000),
            r.below(1 << 40),
            r.below(1 << 40),
            r.below(500),
            r.below(500),
            if r.chance(30) {
                format!(r#"{{"text":"{}","indices":[3,12]}}"#, r.pick(WORDS))
            } else {
                String::new()
            },
            r.pick(LAST),
            r.pick(FIRST),
            r.below(1 << 31),
            r.below(1 << 31),
            r.below(20) + 5,
        );
    }
    out.push_str(r#"],"search_metadata":{"completed_in":0.087,"max_id":505874924095815681,"max_id_str":"505874924095815681","next_results":"?max_id=505874915338104833&q=%E4%B8%80&count=100&include_entities=1","query":"%E4%B8%80","refresh_url":"?since_id=505874924095815681&q=%E4%B8%80&include_entities=1","count":100,"since_id":0,"since_id_str":"0"}}"#);
    out.into_bytes()
}

/// Like citm_catalog.json: id-keyed maps of names and events, performances with prices.
pub(crate) fn citm_like() -> Vec<u8> {
    let mut r = Rng::new(0x5EED_0004);
    let mut out = String::from(r#"{"areaNames":{"#);
    for a in 0..20u64 {
        if a > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            r#""{}":"{} {}""#,
            205_705_993 + a * 13,
            r.pick(WORDS),
            r.pick(CITIES)
        );
    }
    out.push_str(r#"},"events":{"#);
    for e in 0..180u64 {
        if e > 0 {
            out.push(',');
        }
        let id = 138_586_341 + e * 31;
        let _ = write!(
            out,
            r#""{id}":{{"description":null,"id":{id},"logo":{},"name":"{}","subTopicIds":[337184269,337184283],"subjectCode":null,"subtitle":null,"topicIds":[324846099,107888604]}}"#,
            if r.chance(50) {
                format!("\"/images/UE0AAAAACEKo6QAAAAZDSVRN/{e}\"")
            } else {
                "null".into()
            },
            sentence(&mut r, 4)
        );
    }
    out.push_str(r#"},"performances":["#);
    for p in 0..240u64 {
        if p > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            r#"{{"eventId":{},"id":{},"logo":null,"name":null,"prices":["#,
            138_586_341 + (p % 180) * 31,
            339_887_544 + p
        );
        for k in 0..r.below(6) + 1 {
            if k > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                r#"{{"amount":{},"audienceSubCategoryId":337100890,"seatCategoryId":{}}}"#,
                (r.below(200) + 10) * 1000,
                338_937_295 + k
            );
        }
        out.push_str(r#"],"seatCategories":["#);
        for k in 0..r.below(4) + 1 {
            if k > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                r#"{{"areas":[{{"areaId":{},"blockIds":[]}},{{"areaId":{},"blockIds":[]}}],"seatCategoryId":{}}}"#,
                205_705_993 + r.below(20) * 13,
                205_705_993 + r.below(20) * 13,
                338_937_295 + k
            );
        }
        let _ = write!(
            out,
            r#"],"seatMapImage":null,"start":{},"venueCode":"PLEYEL_PLEYEL"}}"#,
            1_372_701_600_000u64 + p * 86_400_000
        );
    }
    out.push_str(r#"],"seatCategoryNames":{"338937295":"Première catégorie"},"subTopicNames":{"337184262":"Musique amplifiée"},"topicNames":{"107888604":"Activité"},"venueNames":{"PLEYEL_PLEYEL":"Salle Pleyel"}}"#);
    out.into_bytes()
}

/// Like canada.json: one GeoJSON polygon feature with tens of thousands of float pairs.
pub(crate) fn canada_like() -> Vec<u8> {
    let mut r = Rng::new(0x5EED_0005);
    let mut out = String::from(
        r#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Canada"},"geometry":{"type":"Polygon","coordinates":["#,
    );
    for ring in 0..50 {
        if ring > 0 {
            out.push(',');
        }
        out.push('[');
        for p in 0..1100 {
            if p > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                "[-{}.{:015},{}.{:015}]",
                50 + r.below(80),
                r.below(1_000_000_000_000_000),
                40 + r.below(40),
                r.below(1_000_000_000_000_000)
            );
        }
        out.push(']');
    }
    out.push_str("]}}]}");
    out.into_bytes()
}

/// Every input by name, in the order benchmarks and scripts list them.
pub(crate) fn all(include_50mb: bool) -> Vec<(&'static str, Vec<u8>)> {
    let mut v = vec![
        ("api-1mb.json", api_response(1 << 20)),
        ("small-samples.jsonl", small_samples(10_000)),
        ("twitter-like.json", twitter_like()),
        ("citm-like.json", citm_like()),
        ("canada-like.json", canada_like()),
    ];
    if include_50mb {
        v.insert(1, ("api-50mb.json", api_response(50 << 20)));
    }
    v
}
