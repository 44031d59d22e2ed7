use agent_api::paging::{ListBody, Page};
use terse::compact::{CompactResource, RenderContext, compact_envelope, DEFAULT_LIST_KEYS};
use terse::CompactLine;

fn one<R: agent_api::store::Record + CompactLine + serde::Serialize>(db: &agent_api::Db) -> (usize, usize) {
    let page = Page { limit: 10, offset: 0 };
    let (records, total) = db.list_page::<R>(page).unwrap();
    let body = serde_json::to_value(ListBody::new(records, total, page)).unwrap();
    let json = serde_json::to_string(&body).unwrap();
    let env = compact_envelope(&body, DEFAULT_LIST_KEYS, &CompactResource::of::<R>(), &RenderContext::now()).unwrap();
    let c = serde_json::to_string(&env).unwrap();
    println!("{}", c);
    (terse::tokens::exact(&json), terse::tokens::exact(&c))
}

#[test]
fn scratch() {
    let db = agent_api::Db::open_in_memory().unwrap();
    let r = [
        one::<agent_api::events::Event>(&db),
        one::<agent_api::notes::Note>(&db),
        one::<agent_api::emails::Email>(&db),
        one::<agent_api::contacts::Contact>(&db),
        one::<agent_api::files::File>(&db),
        one::<agent_api::diary::DiaryEntry>(&db),
    ];
    let db2 = db.clone();
    let _ = db2;
    for (j, c) in r { println!("{j} {c} {:.1}%", (1.0 - c as f64 / j as f64) * 100.0); }
}

#[tokio::test]
async fn scratch_search() {
    let db = agent_api::Db::open_in_memory().unwrap();
    let server = terse_tests::server::TestServer::spawn(agent_api::app(db)).await;
    for path in ["/api/v1/search?q=budget&limit=10"] {
        let json = terse_tests::server::raw_client().get(server.url(path)).send().await.unwrap().text().await.unwrap();
        let body: serde_json::Value = serde_json::from_str(&json).unwrap();
        let env = compact_envelope(&body, DEFAULT_LIST_KEYS, &CompactResource::of::<agent_api::search::SearchResult>(), &RenderContext::now()).unwrap();
        let c = serde_json::to_string(&env).unwrap();
        println!("{c}");
        let (j, c) = (terse::tokens::exact(&json), terse::tokens::exact(&c));
        println!("search {j} {c} {:.1}%", (1.0 - c as f64 / j as f64) * 100.0);
        println!("{}", &json[..1500]);
    }
}

#[tokio::test]
async fn scratch_toon() {
    let db = agent_api::Db::open_in_memory().unwrap();
    let server = terse_tests::server::TestServer::spawn(agent_api::app(db)).await;
    for r in ["events", "notes", "emails", "contacts", "files", "diary"] {
        let json = terse_tests::server::raw_client().get(server.url(&format!("/api/v1/{r}?limit=10"))).send().await.unwrap().text().await.unwrap();
        let body: serde_json::Value = serde_json::from_str(&json).unwrap();
        let toon = terse::toon::encode(&body, &Default::default());
        println!("{r} json {} toon {}", terse::tokens::exact(&json), terse::tokens::exact(&toon));
        if r == "diary" { println!("{}", &toon[..1200]); }
    }
}
