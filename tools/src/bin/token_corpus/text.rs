//! Words, names and the values records are made of.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::rng::Rng;

#[derive(Clone, Copy, PartialEq)]
pub enum Lang {
    En,
    Es,
    Zh,
    Ja,
    Ko,
    De,
    Fr,
    Ru,
    Ar,
    Hi,
    /// English with emoji in most strings.
    Emoji,
    /// A different language per record.
    Mixed,
}

impl Lang {
    pub const ALL: [Lang; 12] = [
        Lang::En,
        Lang::Es,
        Lang::Zh,
        Lang::Ja,
        Lang::Ko,
        Lang::De,
        Lang::Fr,
        Lang::Ru,
        Lang::Ar,
        Lang::Hi,
        Lang::Emoji,
        Lang::Mixed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Es => "es",
            Lang::Zh => "zh",
            Lang::Ja => "ja",
            Lang::Ko => "ko",
            Lang::De => "de",
            Lang::Fr => "fr",
            Lang::Ru => "ru",
            Lang::Ar => "ar",
            Lang::Hi => "hi",
            Lang::Emoji => "emoji",
            Lang::Mixed => "mixed",
        }
    }

    pub fn resolve(self, rng: &mut Rng) -> Lang {
        if self == Lang::Mixed {
            rng.pick(&Lang::ALL[..11])
        } else {
            self
        }
    }
}

#[rustfmt::skip]
pub const EN_WORDS: &[&str] = &[
    "the", "team", "meeting", "review", "update", "project", "customer", "order", "shipped",
    "payment", "received", "invoice", "pending", "account", "settings", "changed", "password",
    "reset", "request", "failed", "because", "server", "timeout", "retry", "later", "quarterly",
    "planning", "session", "with", "design", "and", "engineering", "for", "the", "new", "release",
    "weekly", "sync", "about", "roadmap", "priorities", "please", "confirm", "your", "attendance",
    "before", "Friday", "report", "attached", "database", "migration", "completed", "successfully",
    "warehouse", "inventory", "low", "stock", "alert", "subscription", "renewed", "automatically",
    "delivery", "address", "updated", "support", "ticket", "escalated", "to", "tier", "two",
    "lunch", "break", "conference", "room", "booked", "on", "the", "third", "floor", "client",
    "presentation", "draft", "is", "ready", "feedback", "welcome", "deadline", "moved", "next",
    "week", "user", "signed", "up", "from", "mobile", "app", "cache", "invalidated", "after",
    "deploy", "error", "rate", "increased", "slightly", "in", "region", "documentation", "needs",
    "examples", "authentication", "token", "expired", "refresh", "it", "now", "performance",
    "improved", "by", "percent", "onboarding", "checklist", "notification", "preferences",
    "interview", "candidate", "scheduled", "afternoon", "budget", "approved", "travel", "expenses",
    "a", "of", "is", "was", "will", "be", "this", "that", "all", "our", "their",
    "internationalization", "although", "quickly", "neighborhood", "through", "without",
    "straightforward", "throughput", "Kubernetes", "PostgreSQL", "JavaScript", "misconfigured",
    "unexpectedly", "acknowledged", "reconciliation", "spreadsheet", "photosynthesis", "breakfast",
    "Wednesday", "September", "London", "can't", "won't", "it's", "we'll", "CEO", "API", "URL",
    "HTTP", "JSON", "OK", "battery", "garden", "kitchen", "mountain", "river", "yellow", "purple",
    "guitar", "umbrella",
];

/// Less frequent English words, many of them several tokens long, so the
/// corpus is not made of single-token words only.
#[rustfmt::skip]
pub const EN_RARE: &[&str] = &[
    "idempotency", "heterogeneous", "deprecation", "asynchronous", "serialization", "throttling",
    "misbehaving", "dashboard", "walkthrough", "onboarded", "overdue", "reimbursement",
    "compliance", "auditor", "subcontractor", "procurement", "logistics", "refurbished",
    "waterproof", "ergonomic", "lightweight", "stainless", "handcrafted", "biodegradable",
    "compostable", "artisanal", "sourdough", "espresso", "cardamom", "turmeric", "quinoa",
    "avocado", "zucchini", "eggplant", "broccoli", "marinated", "caramelized", "vinaigrette",
    "hiking", "kayaking", "snorkeling", "paragliding", "itinerary", "layover", "boarding",
    "passport", "visa", "embassy", "consulate", "rescheduled", "postponed", "overbooked",
    "thermostat", "humidifier", "dehumidifier", "refrigerator", "dishwasher", "microwave",
    "screwdriver", "wrench", "drywall", "insulation", "plumbing", "electrician", "carpentry",
    "veterinarian", "pediatrician", "orthodontist", "physiotherapy", "prescription", "allergy",
    "antihistamine", "ibuprofen", "vaccination", "appointment", "referral", "copay", "mortgage",
    "amortization", "escrow", "refinancing", "collateral", "underwriting", "APR", "dividend",
    "portfolio", "rebalancing", "volatility", "liquidity", "arbitrage", "ETF", "telemetry",
    "observability", "instrumentation", "sharding", "replication", "failover", "latency", "jitter",
    "backpressure", "checksum", "nonce", "webhook", "OAuth", "SAML", "GraphQL", "gRPC", "protobuf",
    "YAML", "TOML", "CSV", "SSE", "WebSocket", "localhost", "unsubscribed", "opt-in",
    "double-checked", "well-known", "follow-up", "sign-off", "e-commerce", "end-to-end",
    "real-time", "third-party", "long-term", "state-of-the-art", "Massachusetts", "Albuquerque",
    "Saskatchewan", "Mississippi", "Connecticut", "Pittsburgh", "Oaxaca", "Guadalajara",
    "Valparaíso", "Reykjavík", "Düsseldorf", "Gdańsk", "Thessaloniki", "chrysanthemum",
    "rhododendron", "hydrangea", "bougainvillea", "eucalyptus", "sequoia", "xylophone", "saxophone",
    "harpsichord", "accordion", "ukulele", "didgeridoo", "quizzically", "zealously", "begrudgingly",
    "nonchalantly", "meticulously", "haphazardly", "(draft)", "(optional)", "\"beta\"", "v2.1",
    "3x", "10%", "$49.99", "#42", "@here", "e.g.", "i.e.", "etc.", "Q3", "FY2025", "ISO-8601",
    "UTF-8", "24/7", "1st", "2nd", "3rd",
];

/// Less frequent Spanish words.
#[rustfmt::skip]
pub const ES_RARE: &[&str] = &[
    "desafortunadamente", "imprescindible", "aprovechamiento", "reembolso", "proveedores",
    "contabilidad", "auditoría", "facturación", "impermeable", "ergonómico", "artesanal",
    "aguacate", "berenjena", "calabacín", "cardamomo", "cúrcuma", "vinagreta", "senderismo",
    "itinerario", "escala", "pasaporte", "embajada", "consulado", "reprogramada", "aplazada",
    "termostato", "humidificador", "frigorífico", "lavavajillas", "destornillador", "fontanería",
    "veterinario", "pediatra", "ortodoncista", "fisioterapia", "receta", "alergia", "vacunación",
    "hipoteca", "amortización", "refinanciación", "dividendo", "volatilidad", "liquidez",
    "telemetría", "observabilidad", "replicación", "conmutación", "latencia", "suma de control",
    "Guadalajara", "Valparaíso", "Oaxaca", "Cartagena", "Montevideo", "Asunción", "Córdoba",
    "crisantemo", "buganvilla", "eucalipto", "xilófono", "acordeón", "minuciosamente", "(borrador)",
    "(opcional)", "«beta»", "v2.1", "10 %", "49,99 €", "n.º 42", "p. ej.", "etc.",
];

#[rustfmt::skip]
pub const ES_WORDS: &[&str] = &[
    "la", "reunión", "del", "equipo", "revisión", "actualización", "proyecto", "cliente", "pedido",
    "enviado", "pago", "recibido", "factura", "pendiente", "cuenta", "configuración", "contraseña",
    "restablecida", "solicitud", "falló", "porque", "servidor", "tiempo", "espera", "inténtelo",
    "más", "tarde", "planificación", "trimestral", "sesión", "con", "diseño", "y", "ingeniería",
    "para", "nueva", "versión", "semanal", "sobre", "prioridades", "por", "favor", "confirme",
    "asistencia", "antes", "del", "viernes", "informe", "adjunto", "migración", "completada",
    "éxito", "almacén", "inventario", "bajo", "alerta", "suscripción", "renovada",
    "automáticamente", "entrega", "dirección", "soporte", "técnico", "también", "está", "número",
    "año", "niño", "canción", "después", "pequeño", "rápido", "fácil", "aquí", "mañana", "qué",
    "cómo", "información", "económico", "teléfono", "médico", "público", "señor", "compañía", "el",
    "los", "las", "de", "en", "un", "una", "que", "es", "se", "su", "al", "lo", "muy", "español",
    "Madrid", "Barcelona", "México", "Bogotá", "junio", "miércoles", "sábado", "desafortunadamente",
    "aunque", "rápidamente", "desarrollo", "herramienta", "pingüino", "vergüenza", "corazón",
    "jardín", "montaña", "río", "amarillo", "cumpleaños", "él", "tú", "días", "según", "través",
    "además", "todavía", "están", "habían", "podrían", "usuarios",
];

#[rustfmt::skip]
pub const ZH_WORDS: &[&str] = &[
    "用户", "订单", "数据", "时间", "系统", "会议", "项目", "更新", "完成", "我们", "今天", "服务器", "请求", "错误", "支付", "地址",
    "北京", "上海", "深圳", "客户", "产品", "价格", "库存", "发货", "确认", "取消", "评论", "团队", "设计", "开发", "测试", "发布",
    "版本", "文档", "问题", "解决", "已经", "正在", "需要", "可以", "没有", "如果", "因为", "所以", "但是", "非常", "重要", "明天",
    "下午", "上午", "星期五", "报告", "附件", "邮件", "通知", "设置", "密码", "账户", "登录", "注册", "的", "了", "在", "是",
    "和", "有", "这个", "一个", "请", "会", "到", "中国", "人工智能", "网络", "高铁", "熊猫", "咖啡", "图书馆", "天气", "晴朗",
    "饺子", "春节", "长城", "黄河", "医院", "学生",
];

#[rustfmt::skip]
pub const JA_WORDS: &[&str] = &[
    "会議", "ユーザー", "データ", "します", "ありがとう", "です", "の", "を", "は", "が", "に", "東京", "大阪", "予定", "確認",
    "してください", "注文", "発送", "支払い", "完了", "更新", "プロジェクト", "チーム", "デザイン", "開発", "テスト", "リリース", "バージョン",
    "ドキュメント", "問題", "解決", "明日", "今日", "午後", "午前", "金曜日", "レポート", "メール", "通知", "設定", "パスワード",
    "アカウント", "ログイン", "サーバー", "エラー", "タイムアウト", "お客様", "商品", "価格", "在庫", "キャンセル", "コメント",
    "よろしくお願いします", "ました", "ません", "から", "まで", "こと", "もの", "ため", "新しい", "重要な", "日本", "株式会社", "桜",
    "富士山", "ラーメン", "コーヒー", "図書館", "天気", "晴れ", "新幹線", "京都", "学生",
];

#[rustfmt::skip]
pub const KO_WORDS: &[&str] = &[
    "사용자", "주문", "데이터", "회의", "오늘", "내일", "확인", "완료", "서울", "부산", "감사합니다", "있습니다", "없습니다", "합니다",
    "했습니다", "프로젝트", "팀", "디자인", "개발", "테스트", "배포", "버전", "문서", "문제", "해결", "오후", "오전", "금요일", "보고서",
    "이메일", "알림", "설정", "비밀번호", "계정", "로그인", "서버", "오류", "시간", "초과", "고객", "상품", "가격", "재고", "취소",
    "댓글", "새로운", "중요한", "회사", "결제", "배송", "주소", "변경", "요청", "처리", "중", "을", "를", "이", "가", "은", "는",
    "에서", "으로", "김치", "커피", "도서관", "날씨", "맑음", "지하철", "제주도", "학생", "병원", "한강",
];

#[rustfmt::skip]
pub const DE_WORDS: &[&str] = &[
    "die", "der", "das", "und", "mit", "für", "von", "zu", "ist", "nicht", "auf", "wir", "Sie", "bitte",
    "Besprechung", "Bestellung", "Rechnung", "Zahlung", "erhalten", "versendet", "Kunde", "Konto",
    "Einstellungen", "geändert", "Passwort", "zurückgesetzt", "Anfrage", "fehlgeschlagen", "weil",
    "Zeitüberschreitung", "später", "erneut", "Quartalsplanung", "Sitzung", "Entwicklung", "neue",
    "Version", "wöchentlich", "Abstimmung", "über", "Prioritäten", "bestätigen", "Teilnahme", "vor",
    "Freitag", "Bericht", "Anhang", "Datenbank", "Migration", "erfolgreich", "abgeschlossen", "Lager",
    "Bestand", "niedrig", "Warnung", "Abonnement", "automatisch", "verlängert", "Lieferadresse",
    "aktualisiert", "Kundendienst", "Straße", "Größe", "München", "Köln", "Düsseldorf", "Mittwoch",
    "Frühstück", "Geschäftsführer", "Datenschutzerklärung", "Sehenswürdigkeiten", "Übersicht",
    "ausführlich", "möglicherweise", "Verfügbarkeit", "Fußgängerzone", "Kühlschrank", "schön",
];

#[rustfmt::skip]
pub const FR_WORDS: &[&str] = &[
    "le", "la", "les", "des", "et", "pour", "avec", "dans", "est", "une", "un", "pas", "nous", "vous",
    "réunion", "équipe", "commande", "expédiée", "paiement", "reçu", "facture", "compte", "paramètres",
    "modifiés", "mot de passe", "réinitialisé", "demande", "échoué", "parce que", "serveur", "délai",
    "réessayez", "plus tard", "planification", "trimestrielle", "séance", "conception", "développement",
    "nouvelle", "hebdomadaire", "priorités", "veuillez", "confirmer", "présence", "avant", "vendredi",
    "rapport", "pièce jointe", "base de données", "terminée", "succès", "entrepôt", "stock", "alerte",
    "abonnement", "renouvelé", "automatiquement", "livraison", "adresse", "mise à jour", "très",
    "déjà", "où", "façon", "garçon", "hôpital", "forêt", "château", "Noël", "île", "aujourd'hui",
    "qu'il", "l'équipe", "d'accord", "Genève", "Montréal", "Orléans", "août", "décembre", "bientôt",
];

#[rustfmt::skip]
pub const RU_WORDS: &[&str] = &[
    "и", "в", "на", "с", "не", "что", "это", "для", "по", "мы", "вы", "пожалуйста", "встреча",
    "команды", "заказ", "отправлен", "оплата", "получена", "счёт", "аккаунт", "настройки", "изменены",
    "пароль", "сброшен", "запрос", "ошибка", "потому", "сервер", "время", "ожидания", "повторите",
    "позже", "планирование", "квартальное", "разработка", "новая", "версия", "еженедельная",
    "приоритеты", "подтвердите", "участие", "пятницы", "отчёт", "вложение", "база", "данных",
    "миграция", "успешно", "завершена", "склад", "остаток", "низкий", "подписка", "продлена",
    "автоматически", "доставка", "адрес", "обновлён", "поддержка", "Москва", "Санкт-Петербург",
    "Новосибирск", "понедельник", "сентябрь", "пользователь", "зарегистрировался", "безопасность",
    "производительность", "улучшилась", "здравствуйте", "спасибо", "достопримечательности",
];

#[rustfmt::skip]
pub const AR_WORDS: &[&str] = &[
    "في", "من", "على", "إلى", "مع", "هذا", "التي", "الذي", "عن", "أن", "لا", "نحن", "يرجى",
    "اجتماع", "الفريق", "الطلب", "تم", "شحن", "الدفع", "استلام", "الفاتورة", "الحساب", "الإعدادات",
    "كلمة", "المرور", "إعادة", "تعيين", "فشل", "بسبب", "الخادم", "انتهاء", "المهلة", "لاحقا",
    "التخطيط", "الربع", "السنوي", "التصميم", "التطوير", "الإصدار", "الجديد", "الأسبوعي", "الأولويات",
    "تأكيد", "الحضور", "قبل", "الجمعة", "التقرير", "المرفق", "قاعدة", "البيانات", "بنجاح", "المستودع",
    "المخزون", "منخفض", "تنبيه", "الاشتراك", "تلقائيا", "التوصيل", "العنوان", "الدعم", "الفني",
    "القاهرة", "الرياض", "دبي", "المستخدمين", "شكرا", "مرحبا", "الأمان", "الأداء",
];

#[rustfmt::skip]
pub const HI_WORDS: &[&str] = &[
    "और", "में", "की", "के", "है", "से", "को", "पर", "यह", "नहीं", "हम", "आप", "कृपया", "बैठक",
    "टीम", "ऑर्डर", "भेजा", "गया", "भुगतान", "प्राप्त", "हुआ", "चालान", "खाता", "सेटिंग्स", "बदली",
    "पासवर्ड", "रीसेट", "अनुरोध", "विफल", "क्योंकि", "सर्वर", "समय", "बाद", "दोबारा", "कोशिश",
    "करें", "योजना", "तिमाही", "डिज़ाइन", "विकास", "नया", "संस्करण", "साप्ताहिक", "प्राथमिकताएं",
    "पुष्टि", "उपस्थिति", "शुक्रवार", "रिपोर्ट", "संलग्न", "डेटाबेस", "सफलतापूर्वक", "पूरा",
    "गोदाम", "स्टॉक", "चेतावनी", "सदस्यता", "स्वचालित", "डिलीवरी", "पता", "सहायता", "दिल्ली",
    "मुंबई", "बेंगलुरु", "उपयोगकर्ता", "धन्यवाद", "नमस्ते", "सुरक्षा", "प्रदर्शन",
];

/// Whole sentences, for the free-text fields: real prose has rarer words and
/// longer runs than words drawn from a list, and tokenizes denser.
#[rustfmt::skip]
pub const SENTENCES: &[(Lang, &str)] = &[
    (Lang::En, "Our quarterly newsletter highlights volunteers who rebuilt the community greenhouse after last winter's storm."),
    (Lang::En, "Unfortunately, the contractor underestimated how long the permits would take, so renovation slipped into autumn."),
    (Lang::Es, "La biblioteca municipal amplió su horario durante los exámenes, y los estudiantes agradecieron poder quedarse hasta medianoche."),
    (Lang::Es, "Tras varias semanas de negociaciones, los vecinos consiguieron que el ayuntamiento plantara árboles en la avenida principal."),
    (Lang::De, "Nach monatelangen Verhandlungen einigten sich Gewerkschaft und Geschäftsleitung auf einen neuen Tarifvertrag mit längerer Laufzeit."),
    (Lang::De, "Die Wanderung führte uns über schmale Pfade, vorbei an Wasserfällen und verlassenen Almhütten, bis hinauf zum Gipfelkreuz."),
    (Lang::Fr, "Malgré la pluie battante, des centaines de personnes se sont rassemblées sur la place pour célébrer la réouverture du théâtre."),
    (Lang::Fr, "Le musée présente jusqu'en septembre une exposition consacrée aux peintres impressionnistes méconnus de la région."),
    (Lang::Ru, "После долгих обсуждений жители решили превратить заброшенный пустырь во дворе в небольшой сад с цветами и скамейками."),
    (Lang::Ru, "Экспедиция вернулась из тайги с редкими образцами растений, которые учёные будут изучать ещё несколько лет."),
    (Lang::Ar, "قررت إدارة المدرسة تنظيم رحلة علمية إلى المتحف الوطني لتعريف الطلاب بتاريخ المنطقة وآثارها القديمة."),
    (Lang::Ar, "ارتفعت أسعار الخضروات في الأسواق المحلية بعد موجة الحر الشديدة التي أثرت على المحاصيل الزراعية."),
    (Lang::Hi, "बारिश के मौसम में पहाड़ी इलाकों की सड़कें अक्सर बंद हो जाती हैं, इसलिए यात्रियों को पहले से योजना बनानी चाहिए।"),
    (Lang::Hi, "स्कूल के वार्षिक समारोह में बच्चों ने लोक नृत्य और नाटक प्रस्तुत किए, जिन्हें देखकर सभी अभिभावक बहुत खुश हुए।"),
    (Lang::Zh, "经过三年的修复，这座明代古桥终于重新开放，附近的居民纷纷前来散步、拍照，回忆小时候在河边玩耍的情景。"),
    (Lang::Zh, "由于连续暴雨，山区部分公路出现塌方，交通部门提醒司机绕行，并尽量避免夜间行驶。"),
    (Lang::Ja, "駅前の再開発計画について、住民説明会では賛成と反対の意見が分かれ、結論は次回に持ち越されることになりました。"),
    (Lang::Ja, "祖母の畑で採れたばかりのトマトは甘くて、子どもたちは夏休みのあいだ毎日のように収穫を手伝っていました。"),
    (Lang::Ko, "동네 도서관에서는 이번 겨울 방학 동안 어린이를 위한 그림책 읽기 모임과 과학 실험 교실을 운영할 예정입니다."),
    (Lang::Ko, "갑작스러운 폭설로 출근길 교통이 마비되자 많은 회사가 재택근무를 허용하고 출근 시간을 늦췄습니다."),
];

#[rustfmt::skip]
pub const EMOJI: &[&str] = &[
    "🎉", "🔁", "✅", "🚀", "😀", "👍", "👍🏽", "❤️", "🇪🇸", "🇯🇵", "👨‍💻", "📅", "⚠️", "🔥", "🌍", "☕", "📦", "💳",
    "🐛", "✨", "🙏", "😂", "🤖", "📈", "🔒", "⭐", "🍕", "👩‍👩‍👧", "❌", "⏰", "📍", "🎂",
];

#[rustfmt::skip]
pub const EN_FIRST: &[&str] = &[
    "James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David",
    "Elizabeth", "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah",
    "Olivia", "Liam", "Noah", "Emma", "Ava", "Sophia",
];
#[rustfmt::skip]
pub const EN_LAST: &[&str] = &[
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Anderson",
    "Taylor", "Thomas", "Moore", "Martin", "Jackson", "Thompson", "White", "Harris", "Clark",
];
#[rustfmt::skip]
pub const ES_FIRST: &[&str] = &[
    "José", "María", "Lucía", "Martín", "Sofía", "Andrés", "Ramón", "Inés", "Joaquín", "Begoña",
    "Ángel", "Álvaro", "Carmen", "Javier", "Raúl", "Núria",
];
#[rustfmt::skip]
pub const ES_LAST: &[&str] = &[
    "García", "Fernández", "González", "Rodríguez", "López", "Martínez", "Sánchez", "Pérez",
    "Gómez", "Núñez", "Ibáñez", "Muñoz", "Jiménez", "Álvarez", "Peña", "Castaño",
];
#[rustfmt::skip]
pub const ZH_NAMES: &[&str] = &[
    "王伟", "李娜", "张敏", "刘洋", "陈静", "杨磊", "黄丽", "赵强", "周杰", "吴芳",
];
#[rustfmt::skip]
pub const JA_NAMES: &[&str] = &[
    "佐藤 健", "鈴木 花子", "高橋 翔", "田中 美咲", "渡辺 大輔", "伊藤 さくら", "山本 蓮",
];
#[rustfmt::skip]
pub const KO_NAMES: &[&str] = &[
    "김민준", "이서연", "박지훈", "최수아", "정예준", "강하은", "조도윤", "윤지우",
];

#[rustfmt::skip]
pub const CITIES: &[&str] = &[
    "London", "New York", "San Francisco", "Madrid", "Ciudad de México", "Bogotá", "東京", "北京", "서울",
    "Berlin", "São Paulo", "Zürich", "Kraków", "Montréal",
];

#[rustfmt::skip]
pub const CODE: &[&str] = &[
    "fn main() { println!(\"{}\", x); }", "SELECT id, name FROM users WHERE id = 42;",
    "if (x > 0) { return x * 2; } else { return -x; }",
    "GET /api/v1/users/{id}/events?limit=20&offset=40",
    "src/main.rs:42:13: error[E0382]: borrow of moved value: `buf`",
    "let v: Vec<u32> = vec![1, 2, 3].into_iter().map(|n| n * 2).collect();",
    "<div class=\"card\"><span>{{ title }}</span></div>", "#[derive(Debug, Clone, Serialize)]",
    "npm install --save-dev @types/node@20.11.5",
    "const total = items.reduce((sum, it) => sum + it.price, 0);",
    "docker run -p 8080:80 -e RUST_LOG=debug ghcr.io/acme/api:1.4.2",
    "for i in range(len(xs)): print(xs[i] ** 2)",
    "Traceback (most recent call last): File \"app.py\", line 17, in <module>",
    "curl -H 'Accept: text/toon' https://api.example.com/v2/orders",
    "UPDATE orders SET status = 'shipped' WHERE created_at < NOW() - INTERVAL '7 days';",
    "$ git commit -m \"fix: handle empty body\" && git push origin main",
    "x = (a + b) * c / 2.5; y = x % 7 != 0 ? x : ~x;", "export PATH=\"$HOME/.cargo/bin:$PATH\"",
];

#[rustfmt::skip]
pub const STATUSES: &[&str] = &[
    "active", "pending", "shipped", "delivered", "cancelled", "failed", "draft", "archived",
];
pub const LEVELS: &[&str] = &["INFO", "WARN", "ERROR", "DEBUG", "TRACE"];
#[rustfmt::skip]
pub const TAGS: &[&str] = &[
    "urgent", "billing", "backend", "frontend", "vip", "beta", "internal", "q3", "mobile", "ops",
    "security", "design", "api", "eu-west-1", "us_east", "v2",
];
#[rustfmt::skip]
pub const DOMAINS: &[&str] = &[
    "example.com", "acme.io", "mail.example.org", "empresa.es", "corp.co.jp", "naver.com",
];

pub fn words(rng: &mut Rng, lang: Lang, min: usize, max: usize) -> String {
    let n = min + rng.below(max - min + 1);
    let mut out = String::new();
    let script = if lang == Lang::Emoji { Lang::En } else { lang };
    if n >= 5 && rng.chance(0.8) {
        let sentences: Vec<&str> = SENTENCES
            .iter()
            .filter(|(l, _)| *l == script)
            .map(|(_, s)| *s)
            .collect();
        if !sentences.is_empty() {
            return rng.pick(&sentences).to_owned();
        }
    }
    match lang {
        Lang::En | Lang::Emoji | Lang::Mixed => {
            for i in 0..n {
                if i > 0 {
                    out.push(' ');
                }
                let w = if rng.chance(0.3) {
                    rng.pick(EN_RARE)
                } else {
                    rng.pick(EN_WORDS)
                };
                if i == 0 {
                    capitalise(&mut out, w);
                } else {
                    out.push_str(w);
                }
                if i + 1 < n && rng.chance(0.06) {
                    out.push(',');
                }
                if lang == Lang::Emoji && rng.chance(0.15) {
                    out.push(' ');
                    out.push_str(rng.pick(EMOJI));
                }
            }
            if n > 3 {
                out.push_str(rng.pick(&[".", ".", ".", "!", "?", ""]));
            }
        }
        Lang::Es => {
            let question = n > 3 && rng.chance(0.2);
            if question {
                out.push('¿');
            }
            for i in 0..n {
                if i > 0 {
                    out.push(' ');
                }
                let w = if rng.chance(0.3) {
                    rng.pick(ES_RARE)
                } else {
                    rng.pick(ES_WORDS)
                };
                if i == 0 {
                    capitalise(&mut out, w);
                } else {
                    out.push_str(w);
                }
                if i + 1 < n && rng.chance(0.06) {
                    out.push(',');
                }
            }
            if question {
                out.push('?');
            } else if n > 3 {
                out.push('.');
            }
        }
        Lang::Zh => {
            for i in 0..n {
                out.push_str(rng.pick(ZH_WORDS));
                if i + 1 < n && rng.chance(0.12) {
                    out.push('，');
                }
            }
            if n > 3 {
                out.push_str(rng.pick(&["。", "。", "！", "？"]));
            }
        }
        Lang::Ja => {
            for i in 0..n {
                out.push_str(rng.pick(JA_WORDS));
                if i + 1 < n && rng.chance(0.1) {
                    out.push('、');
                }
            }
            if n > 3 {
                out.push('。');
            }
        }
        Lang::Ko => {
            for i in 0..n {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(rng.pick(KO_WORDS));
            }
            if n > 3 {
                out.push('.');
            }
        }
        Lang::De | Lang::Fr | Lang::Ru | Lang::Ar | Lang::Hi => {
            let list = match lang {
                Lang::De => DE_WORDS,
                Lang::Fr => FR_WORDS,
                Lang::Ru => RU_WORDS,
                Lang::Ar => AR_WORDS,
                _ => HI_WORDS,
            };
            for i in 0..n {
                if i > 0 {
                    out.push(' ');
                }
                let w = rng.pick(list);
                if i == 0 {
                    capitalise(&mut out, w);
                } else {
                    out.push_str(w);
                }
                if i + 1 < n && rng.chance(0.06) {
                    out.push(if lang == Lang::Ar { '،' } else { ',' });
                }
            }
            if n > 3 {
                out.push_str(match lang {
                    Lang::Hi => "।",
                    Lang::Ar => "؟",
                    _ => ".",
                });
            }
        }
    }
    out
}

pub fn capitalise(out: &mut String, word: &str) {
    let mut chars = word.chars();
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
        out.push_str(chars.as_str());
    }
}

pub fn person(rng: &mut Rng, lang: Lang) -> String {
    match lang {
        Lang::En | Lang::Emoji | Lang::Mixed => {
            format!("{} {}", rng.pick(EN_FIRST), rng.pick(EN_LAST))
        }
        Lang::De => rng
            .pick(&["Jürgen Müller", "Anna Schäfer", "Lukas Weiß", "Sophie Groß"])
            .to_string(),
        Lang::Fr => rng
            .pick(&[
                "Élodie Lefèvre",
                "François Dubois",
                "Chloé Moreau",
                "Jérôme Faure",
            ])
            .to_string(),
        Lang::Ru => rng
            .pick(&[
                "Иван Петров",
                "Анна Смирнова",
                "Дмитрий Козлов",
                "Ольга Новикова",
            ])
            .to_string(),
        Lang::Ar => rng
            .pick(&["محمد العلي", "فاطمة الزهراء", "أحمد حسن", "ليلى منصور"])
            .to_string(),
        Lang::Hi => rng
            .pick(&["राहुल शर्मा", "प्रिया पटेल", "अमित कुमार", "सुनीता वर्मा"])
            .to_string(),
        Lang::Es => format!("{} {}", rng.pick(ES_FIRST), rng.pick(ES_LAST)),
        Lang::Zh => rng.pick(ZH_NAMES).to_string(),
        Lang::Ja => rng.pick(JA_NAMES).to_string(),
        Lang::Ko => rng.pick(KO_NAMES).to_string(),
    }
}

pub fn email(rng: &mut Rng) -> String {
    let first = rng.pick(EN_FIRST).to_lowercase();
    let last = rng.pick(EN_LAST).to_lowercase();
    let sep = rng.pick(&[".", "_", ""]);
    let n = if rng.chance(0.3) {
        rng.range(1, 99).to_string()
    } else {
        String::new()
    };
    format!("{first}{sep}{last}{n}@{}", rng.pick(DOMAINS))
}

pub fn uuid(rng: &mut Rng) -> String {
    let a = rng.next();
    let b = rng.next();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | (b >> 48) & 0x3fff,
        b & 0xffff_ffff_ffff
    )
}

pub fn hex(rng: &mut Rng, len: usize) -> String {
    let mut out = String::new();
    while out.len() < len {
        let _ = write!(out, "{:016x}", rng.next());
    }
    out.truncate(len);
    out
}

pub fn timestamp(rng: &mut Rng) -> String {
    let year = rng.range(2019, 2026);
    let month = rng.range(1, 12);
    let day = rng.range(1, 28);
    let hour = rng.range(0, 23);
    let minute = rng.range(0, 59);
    let second = rng.range(0, 59);
    let mut out = format!("{year}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}");
    match rng.below(4) {
        0 => {
            let _ = write!(out, ".{:03}", rng.range(0, 999));
        }
        1 => {
            let _ = write!(out, ".{:06}", rng.range(0, 999_999));
        }
        _ => {}
    }
    match rng.below(3) {
        0 => out.push('Z'),
        1 => {
            let _ = write!(out, "+{:02}:00", rng.range(1, 9));
        }
        _ => {
            let _ = write!(out, "-{:02}:{}", rng.range(3, 8), rng.pick(&["00", "30"]));
        }
    }
    out
}

pub fn clock(rng: &mut Rng) -> String {
    format!("{:02}:{:02}", rng.range(7, 19), rng.pick(&[0, 15, 30, 45]))
}

pub fn base64(rng: &mut Rng, bytes: usize, url_safe: bool) -> String {
    let alphabet: &[u8; 64] = if url_safe {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let data: Vec<u8> = (0..bytes).map(|_| rng.next() as u8).collect();
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        let symbols = chunk.len() + 1;
        for i in 0..4 {
            if i < symbols {
                out.push(char::from(alphabet[(n >> (18 - 6 * i) & 63) as usize]));
            } else if !url_safe {
                out.push('=');
            }
        }
    }
    out
}

pub fn price(rng: &mut Rng) -> Value {
    let cents = rng.range(99, 250_000);
    json!((cents as f64) / 100.0)
}

pub fn number(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => json!(rng.range(0, 100)),
        1 => json!(rng.range(-5000, 5000)),
        2 => json!(rng.range(1_000_000, 9_999_999_999)),
        3 => json!((rng.unit() * 1000.0 * 1000.0).round() / 1000.0),
        4 => json!(((rng.unit() * 180.0 - 90.0) * 1e6).round() / 1e6),
        _ => json!(rng.unit() * 1e-3),
    }
}

pub fn url(rng: &mut Rng) -> String {
    format!(
        "https://{}/{}/{}?page={}",
        rng.pick(DOMAINS),
        rng.pick(&[
            "api/v1/users",
            "files",
            "orders",
            "img/avatars",
            "docs/guide"
        ]),
        rng.range(1, 99_999),
        rng.range(1, 20)
    )
}

pub fn tags(rng: &mut Rng) -> Value {
    let n = rng.below(4);
    Value::Array((0..n).map(|_| json!(rng.pick(TAGS))).collect())
}
