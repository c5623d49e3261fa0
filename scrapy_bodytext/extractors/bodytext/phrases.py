"""The multilingual vocabulary of page furniture: phrases by kind and language.

Each kind lists, per language (ISO 639-1), lower-case phrases as regular-expression fragments.
They are generic web vocabulary — the words every site uses for its share bar, its tag list or its
advertisement label — and never a site's own name. ``vocabulary`` compiles them into line patterns.
Adding a language is adding its phrases here.
"""

from __future__ import annotations

#: prompts: share, follow, subscribe, sign in, print, e-mail, read on, related, most read, navigation
PROMPTS: dict[str, tuple[str, ...]] = {
    "en": (
        r"share(?: (?:this|on|via|the))?(?: (?:article|story|post|page|link|facebook|twitter|x|e-?mail))?",
        r"tweet(?: this)?", r"pin it", r"e-?mail(?: this)?(?: (?:article|story|page))?", r"copy link",
        r"print(?: this)?(?: (?:article|story|page))?", r"follow(?: us| me)?(?: on)?", r"like us(?: on)?",
        r"subscribe(?: now| today)?", r"sign ?up", r"sign ?in", r"log ?in", r"log ?out", r"register(?: now)?",
        r"newsletters?", r"get (?:the|our) (?:app|newsletter)", r"download (?:the|our) app",
        r"read more", r"read next", r"read also", r"see also", r"continue reading", r"keep reading",
        r"more (?:from|on|about|stories|news|in)", r"related(?: (?:articles?|stories|posts|content|coverage|topics|news))?",
        r"recommended(?: for you)?", r"you (?:may|might) (?:also )?like", r"trending(?: now)?",
        r"most (?:read|popular|viewed|shared)", r"around the web", r"next(?: article| story| post)?",
        r"previous(?: article| story| post)?", r"back to top", r"skip to (?:main )?(?:content|navigation)",
        r"advertisement", r"advertising", r"sponsored(?: content| by)?", r"promoted(?: content)?", r"load more",
        r"show more", r"view (?:all|more)(?: comments)?", r"reply", r"report(?: abuse)?", r"accept(?: all)?(?: cookies)?",
    ),
    "de": (
        r"(?:artikel |beitrag |seite )?teilen", r"jetzt teilen", r"folgen sie uns", r"(?:jetzt )?abonnieren",
        r"anmelden", r"einloggen", r"abmelden", r"registrieren", r"drucken", r"link kopieren", r"weiterlesen",
        r"mehr zum thema", r"mehr (?:aus|zu|von)", r"lesen sie auch", r"auch interessant", r"das könnte sie (?:auch )?interessieren",
        r"meistgelesen(?:e)?", r"aus dem netz", r"anzeige", r"werbung", r"gesponsert", r"nach oben",
        r"zum inhalt springen", r"antworten", r"melden", r"weitere (?:kommentare|artikel)(?: laden)?",
        r"newsletter(?: bestellen| abonnieren)?",
    ),
    "fr": (
        r"partager(?: (?:cet article|sur))?", r"suivez[- ]nous", r"s'abonner", r"abonnez-vous", r"se connecter",
        r"connexion", r"s'inscrire", r"imprimer", r"lire aussi", r"lire la suite", r"à lire (?:aussi|également)",
        r"sur le même sujet", r"les plus lus", r"publicit[ée]", r"contenu sponsoris[ée]", r"r[ée]pondre",
        r"signaler", r"retour en haut", r"aller au contenu",
    ),
    "es": (
        r"compartir(?: (?:en|esta noticia|este art[ií]culo))?", r"comparte", r"s[ií]guenos", r"suscr[ií]bete",
        r"suscribirme", r"iniciar sesi[oó]n", r"reg[ií]strate", r"imprimir", r"leer m[aá]s", r"lee tambi[ée]n",
        r"noticias relacionadas", r"te puede interesar", r"lo m[aá]s le[ií]do", r"publicidad",
        r"contenido patrocinado", r"responder", r"denunciar", r"saltar al contenido", r"ver m[aá]s(?: comentarios)?",
    ),
    "it": (
        r"condividi(?: (?:su|l'articolo))?", r"seguici", r"iscriviti", r"abbonati", r"accedi", r"stampa",
        r"leggi anche", r"leggi di pi[uù]", r"articoli correlati", r"i pi[uù] letti", r"pubblicit[àa]",
        r"contenuto sponsorizzato", r"rispondi", r"segnala", r"vai al contenuto",
    ),
    "pt": (
        r"compartilhe", r"compartilhar", r"partilhar", r"siga-nos", r"assine", r"inscreva-se", r"entrar na conta",
        r"leia (?:mais|tamb[ée]m)", r"not[ií]cias relacionadas", r"mais lidas", r"publicidade",
        r"conte[uú]do patrocinado", r"responder", r"denunciar", r"ir para o conte[uú]do",
    ),
    "nl": (
        r"delen", r"deel (?:dit )?artikel", r"volg ons", r"abonneer(?: je)?", r"inloggen", r"lees (?:ook|meer)",
        r"meest gelezen", r"advertentie", r"gesponsord", r"reageer", r"beantwoorden",
    ),
    "sv": (r"dela(?: artikeln)?", r"följ oss", r"prenumerera", r"logga in", r"läs (?:också|mer)", r"mest lästa", r"annons"),
    "da": (r"del artiklen", r"følg os", r"abonn[ée]r", r"log ind", r"læs (?:også|mere)", r"mest læste", r"annonce"),
    "no": (r"del artikkelen", r"følg oss", r"abonner", r"logg inn", r"les (?:også|mer)", r"mest lest", r"annonse"),
    "fi": (r"jaa(?: artikkeli)?", r"seuraa meitä", r"tilaa", r"kirjaudu(?: sisään)?", r"lue (?:myös|lisää)", r"luetuimmat", r"mainos"),
    "pl": (
        r"udost[eę]pnij", r"obserwuj(?: nas)?", r"subskrybuj", r"zaloguj(?: si[eę])?", r"czytaj (?:te[zż]|wi[eę]cej)",
        r"najcz[eę][sś]ciej czytane", r"reklama", r"odpowiedz",
    ),
    "cs": (r"sd[ií]let", r"sledujte n[aá]s", r"p[rř]ihl[aá]sit(?: se)?", r"[cč]t[eě]te tak[eé]", r"nejčtenější", r"reklama", r"odpov[eě]d[eě]t"),
    "sk": (r"zdie[lľ]a[tť]", r"sledujte n[aá]s", r"prihl[aá]si[tť] sa", r"[cč][ií]tajte aj", r"reklama"),
    "hu": (r"megoszt[aá]s", r"k[oö]vess(?: minket)?", r"feliratkoz[aá]s", r"bejelentkez[eé]s", r"olvasd el (?:ezt )?is", r"hirdet[eé]s"),
    "ro": (r"distribuie", r"urm[aă]re[sș]te-ne", r"abonează-te", r"autentificare", r"citește (?:și|mai mult)", r"publicitate"),
    "hr": (r"podijeli", r"pratite nas", r"pretplatite se", r"prijava", r"pro[cč]itajte (?:i|jo[sš])", r"oglas"),
    "sl": (r"deli", r"sledite nam", r"naro[cč]i se", r"prijava", r"preberite (?:tudi|ve[cč])", r"oglas"),
    "el": (r"κοινοποίηση", r"μοιραστείτε", r"ακολουθήστε μας", r"εγγραφή", r"σύνδεση", r"διαβάστε (?:ακόμη|επίσης)", r"διαφήμιση"),
    "ru": (
        r"поделиться", r"подписаться", r"подпишитесь", r"войти", r"читайте (?:также|тоже)", r"читать далее",
        r"по теме", r"самое читаемое", r"реклама", r"ответить", r"пожаловаться",
    ),
    "uk": (r"поділитися", r"підписатися", r"увійти", r"читайте також", r"реклама", r"відповісти"),
    "bg": (r"сподели", r"абонирай(?: се)?", r"вход", r"прочетете (?:още|също)", r"реклама"),
    "tr": (r"paylaş", r"bizi takip edin", r"abone ol", r"giriş yap", r"ayrıca oku(?:yun)?", r"devamını oku", r"en çok okunanlar", r"reklam", r"yanıtla"),
    "ar": (r"شارك", r"مشاركة", r"تابعنا", r"اشترك", r"تسجيل الدخول", r"اقرأ (?:أيضا|أيضاً|المزيد)", r"الأكثر قراءة", r"إعلان", r"رد"),
    "he": (r"שתפו", r"שיתוף", r"עקבו אחרינו", r"הירשמו", r"התחברות", r"קראו (?:עוד|גם)", r"פרסומת", r"השב"),
    "fa": (r"اشتراک[‌ ]?گذاری", r"ما را دنبال کنید", r"عضویت", r"ورود", r"بیشتر بخوانید", r"تبلیغات", r"پاسخ"),
    "hi": (r"शेयर करें", r"फॉलो करें", r"सब्सक्राइब करें", r"लॉग इन", r"ये भी पढ़ें", r"और पढ़ें", r"विज्ञापन"),
    "id": (r"bagikan", r"ikuti kami", r"berlangganan", r"masuk", r"baca (?:juga|selengkapnya)", r"terpopuler", r"iklan", r"balas"),
    "ms": (r"kongsi", r"ikuti kami", r"langgan", r"log masuk", r"baca juga", r"iklan"),
    "vi": (r"chia sẻ", r"theo dõi", r"đăng ký", r"đăng nhập", r"xem (?:thêm|tiếp)", r"đọc nhiều", r"quảng cáo", r"trả lời"),
    "th": (r"แชร์", r"ติดตาม", r"สมัครสมาชิก", r"เข้าสู่ระบบ", r"อ่านเพิ่มเติม", r"โฆษณา"),
    "zh": (
        r"分享(?:到|本文|文章)?", r"转发", r"收藏", r"关注我们", r"(?:立即)?订阅", r"登录", r"注册", r"打印",
        r"相关(?:阅读|新闻|报道|文章)", r"热门文章", r"阅读(?:更多|全文)", r"广告", r"推广(?:内容)?", r"回复",
        r"举报", r"跳到正文", r"查看更多(?:评论)?", r"返回顶部", r"分享到", r"責任編輯", r"责任编辑",
    ),
    "ja": (
        r"(?:この記事を)?(?:シェア|共有)(?:する)?", r"ツイート", r"フォロー(?:する)?", r"購読(?:のお申し込み)?",
        r"ログイン", r"登録(?:する)?", r"印刷", r"関連(?:記事|ニュース)", r"よく読まれている記事", r"続きを読む",
        r"広告", r"おすすめ(?:情報|記事)?", r"返信", r"通報", r"本文へ(?:移動)?", r"コメントをもっと見る", r"ページトップへ",
    ),
    "ko": (r"공유(?:하기)?", r"구독(?:하기)?", r"로그인", r"관련(?:기사|뉴스)", r"많이 본 뉴스", r"광고", r"답글", r"신고"),
}

#: lone labels: the heading of a tag or topic list, a media label, a continuation note
LABELS: dict[str, tuple[str, ...]] = {
    "en": (
        r"tags?", r"topics?", r"categor(?:y|ies)", r"filed under", r"keywords", r"photos?", r"videos?", r"gallery",
        r"article content", r"story continues below(?: advertisement)?", r"continue reading (?:below|the main story)",
        r"\d+ min(?:ute)?s? read", r"listen(?: to (?:this )?(?:article|story))?",
    ),
    "de": (r"themen", r"schlagw[öo]rter", r"stichw[öo]rter", r"tags", r"galerie", r"weiterlesen nach der anzeige",
           r"artikel weiterlesen", r"lesezeit:? \d+ min\.?"),
    "fr": (r"th[èe]mes?", r"mots[- ]cl[ée]s", r"sujets?", r"galerie", r"lecture:? \d+ min\.?", r"la suite apr[èe]s (?:la|cette) publicit[ée]"),
    "es": (r"temas?", r"etiquetas", r"galer[ií]a", r"la noticia contin[uú]a (?:debajo|tras la publicidad)", r"lectura:? \d+ min\.?"),
    "it": (r"argomenti", r"tag", r"galleria", r"l'articolo continua (?:sotto|dopo la pubblicit[àa])"),
    "pt": (r"temas?", r"t[oó]picos", r"etiquetas", r"galeria", r"continua (?:depois|ap[oó]s) (?:da )?publicidade"),
    "nl": (r"onderwerpen", r"trefwoorden", r"tags"),
    "sv": (r"ämnen",), "da": (r"emner",), "no": (r"emner",), "fi": (r"aiheet", r"avainsanat"),
    "pl": (r"tematy", r"tagi"), "cs": (r"t[eé]mata", r"štítky"), "hu": (r"címkék", r"témák"),
    "ro": (r"etichete", r"subiecte"), "el": (r"ετικέτες", r"θέματα"), "ru": (r"темы", r"теги", r"метки"),
    "uk": (r"теги", r"теми"), "tr": (r"konular", r"etiketler"), "ar": (r"الوسوم", r"مواضيع"),
    "id": (r"topik", r"tag"), "vi": (r"chủ đề", r"thẻ"),
    "zh": (r"(?:相关)?话题", r"标签", r"关键词", r"广告之后继续阅读", r"阅读约需\d+分钟"),
    "ja": (r"関連キーワード", r"タグ", r"キーワード", r"記事は広告の後に続きます", r"約\d+分で読めます"),
    "ko": (r"태그", r"키워드"),
}

#: picture credits: the word that starts them, before a colon or slash
CREDITS: dict[str, tuple[str, ...]] = {
    "en": (r"photo(?:graph)?s?", r"image", r"picture", r"credit", r"source", r"illustration"),
    "de": (r"foto", r"bild", r"quelle", r"grafik"), "fr": (r"photo", r"crédit", r"source", r"illustration"),
    "es": (r"foto", r"imagen", r"fuente"), "it": (r"foto", r"immagine", r"fonte"), "pt": (r"foto", r"imagem", r"fonte"),
    "nl": (r"foto", r"beeld", r"bron"), "pl": (r"fot\.?", r"zdj[eę]cie", r"źródło"), "ru": (r"фото", r"источник"),
    "zh": (r"摄影", r"图片来源", r"图", r"来源"), "ja": (r"写真", r"撮影", r"出典"), "ko": (r"사진",),
}

#: headers of reader-comment threads (as a count or alone)
COMMENT_WORDS: dict[str, tuple[str, ...]] = {
    "en": (r"comments", r"responses", r"replies", r"reactions", r"discussion"),
    "de": (r"kommentare", r"leserkommentare", r"diskussion"), "fr": (r"commentaires", r"réactions"),
    "es": (r"comentarios",), "it": (r"commenti",), "pt": (r"coment[aá]rios",), "nl": (r"reacties",),
    "sv": (r"kommentarer",), "da": (r"kommentarer",), "no": (r"kommentarer",), "pl": (r"komentarze",),
    "cs": (r"koment[aá][řr]e",), "ru": (r"комментарии",), "tr": (r"yorumlar",), "ar": (r"التعليقات",),
    "id": (r"komentar",), "vi": (r"bình luận",), "zh": (r"评论", r"留言", r"網友評論"), "ja": (r"コメント",), "ko": (r"댓글",),
}

#: invitations to comment
COMMENT_INVITATIONS: dict[str, tuple[str, ...]] = {
    "en": (r"leave a (?:reply|comment)", r"post a comment", r"add (?:a|your) comment", r"join the (?:discussion|conversation)",
           r"(?:\d+ )?(?:responses?|comments?) (?:to|on)\b", r"load more comments", r"reader comments"),
    "de": (r"kommentieren", r"kommentar schreiben", r"weitere kommentare laden"), "fr": (r"r[ée]agir", r"laisser un commentaire"),
    "es": (r"deja (?:un|tu) comentario", r"ver m[aá]s comentarios"), "it": (r"lascia un commento",),
    "pt": (r"deixe (?:um|seu) coment[aá]rio",), "zh": (r"查看更多评论", r"发表评论"), "ja": (r"コメントする", r"コメントを書く"),
}

#: reading the whole table as one alternation per kind
def alternation(table: dict[str, tuple[str, ...]]) -> str:
    """One regular-expression alternation of every phrase of ``table``, longest first."""
    phrases = sorted({phrase for found in table.values() for phrase in found}, key=len, reverse=True)
    return "|".join(phrases)
