"""Lines that are page furniture in any article: the multilingual vocabulary of share, follow,
subscribe and advertisement prompts, lone labels, gallery counters, copyright, credit, byline and
date lines, and comment-thread headers.

Each pattern describes a *kind of line*, in the languages the stop-word lists cover most (English,
German, French, Spanish, Italian, Portuguese, Dutch, Nordic languages, Polish, Russian, Turkish,
Chinese, Japanese, Korean); none names a site. They are matched against short paragraphs only (a
long paragraph is prose whatever words it holds) and become features of the paragraph model, which
weighs them against everything else it knows about the paragraph.
"""

from __future__ import annotations

import re

#: paragraphs longer than this (in characters) are never tested against the line patterns
MAX_LINE = 160

_MONTHS = (
    "jan(?:uary|uar|vier|eiro)?|feb(?:ruary|ruar)?|f[ée]v(?:rier)?|fev(?:ereiro)?|m[aä]r(?:ch|z|s|zo|ço)?|"
    "apr(?:il)?|avr(?:il)?|abr(?:il)?|may|mai|mayo|maio|maggio|jun[ei]?|juin|junio|giugno|jul[iy]?|juil(?:let)?|"
    "julio|luglio|aug(?:ust)?|ao[uû]t|agosto|sep(?:t(?:ember|embre)?)?|set(?:embro|tembre)?|oct(?:ober|obre)?|"
    "okt(?:ober)?|out(?:ubro)?|ott(?:obre)?|nov(?:ember|embre|iembre)?|dec(?:ember)?|d[ée]c(?:embre)?|"
    "dez(?:ember|embro)?|dic(?:iembre|embre)?"
)

#: share, follow, subscribe, sign-in, print/e-mail, navigation and advertisement prompts
_PROMPTS = (
    r"share(?: (?:this|on|via|the))?(?: (?:article|story|post|page|link|facebook|twitter|x|e-?mail))?|tweet|pin it|"
    r"e-?mail(?: this)?(?: (?:article|story|page))?|print(?: this)?(?: (?:article|story|page))?|"
    r"follow(?: us| me)?(?: on)?|like us|subscribe(?: now)?|sign ?up|sign ?in|log ?in|register|newsletters?|"
    r"get (?:the|our) (?:app|newsletter)|download (?:the|our) app|read more|read next|read also|see also|"
    r"more (?:from|on|about|stories|news|in)|related(?: (?:articles?|stories|posts|content|coverage|topics))?|"
    r"recommended(?: for you)?|you (?:may|might) (?:also )?like|trending(?: now)?|most (?:read|popular|viewed)|"
    r"next(?: article| story| post)?|previous(?: article| story| post)?|back to top|skip to (?:content|main)|"
    r"advertisement|advertising|sponsored(?: content)?|promoted|"
    r"teilen|jetzt teilen|folgen sie uns|abonnieren|anmelden|einloggen|drucken|weiterlesen|mehr zum thema|"
    r"lesen sie auch|auch interessant|anzeige|werbung|"
    r"partager|suivez[- ]nous|s'abonner|abonnez-vous|se connecter|imprimer|lire aussi|lire la suite|publicit[ée]|"
    r"compartir|s[ií]guenos|suscr[ií]bete|iniciar sesi[oó]n|imprimir|leer m[aá]s|lee tambi[ée]n|publicidad|"
    r"condividi|seguici|iscriviti|accedi|leggi anche|pubblicit[àa]|"
    r"compartilhe|compartilhar|siga-nos|assine|leia (?:mais|tamb[ée]m)|publicidade|"
    r"delen|volg ons|abonneer|inloggen|lees (?:ook|meer)|advertentie|"
    r"f[øo]lg oss|prenumerera|annons|udost[eę]pnij|obserwuj|subskrybuj|reklama|"
    r"поделиться|подписаться|войти|читайте также|реклама|paylaş|abone ol|reklam|"
    r"分享|订阅|登录|广告|相关阅读|相关新闻|シェア|購読|ログイン|広告|関連記事|공유|구독|로그인|광고|관련기사"
)
#: a short line that starts with a prompt (a feature: "Share prices fell" starts so too)
PROMPT_RE = re.compile(r"^\W*(?:" + _PROMPTS + r")(?:\W|$)")
#: a line that is nothing but a prompt ("Share this story", "Advertisement", "» Read more")
WHOLE_PROMPT_RE = re.compile(r"^\W*(?:" + _PROMPTS + r")[\W\d]*$")
#: a lone label: a tag, topic or section heading with nothing after it
LABEL_RE = re.compile(
    r"^\W*(?:tags?|topics?|categories|category|filed under|keywords|themen|schlagw[öo]rter|stichw[öo]rter|"
    r"th[èe]mes?|mots[- ]cl[ée]s|temas?|etiquetas|argomenti|tag|onderwerpen|trefwoorden|emner|[äa]mnen|"
    r"tematy|tagi|темы|теги|konular|etiketler|标签|话题|タグ|태그|photos?|videos?|gallery|galerie|galería|"
    r"article content|story continues below(?: advertisement)?|continue reading(?: below)?)\W*$"
)
#: "Image 1 of 5", "Photo 3/10", "Bild 1 von 5", "Foto 1 de 5", "(2 of 12)"
COUNTER_RE = re.compile(
    r"^\W*(?:(?:image|photo|picture|slide|bild|foto|photo|imagen|immagine|imagem|afbeelding|zdj[eę]cie|фото)s?\s*)?"
    r"\d{1,3}\s*(?:/|of|von|de|di|sur|van|из|av|af|z)\s*\d{1,3}\W*$"
)
#: copyright and rights lines
COPYRIGHT_RE = re.compile(
    r"©|\(c\)\s*(?:19|20)\d\d|\bcopyright\b|all rights reserved|alle rechte vorbehalten|tous droits r[ée]serv[ée]s|"
    r"todos los derechos reservados|tutti i diritti riservati|todos os direitos reservados|alle rechten voorbehouden|"
    r"все права защищены|版权所有|無断転載|무단전재"
)
#: picture credits
CREDIT_RE = re.compile(
    r"^\W*(?:(?:photo|image|picture|foto|bild|imagen|immagine|imagem|cr[ée]dits?|credit|quelle|source|fonte|fuente)s?"
    r"(?: by| von| de| di| par)?\s*[:/|]|\(?(?:photo|image|foto|picture)s? (?:by|courtesy|credit)\b)"
)
#: author lines ("By Jane Doe", "Von Max Muster", "Par ...", "Posted by ...")
BYLINE_RE = re.compile(
    r"^\W*(?:by|von|par|por|di|door|av|af|przez|от|yazan|written by|posted by|published by|reporting by|"
    r"words by|story by|text|texto|author|autor|auteur|autore|автор)\s*:?\s+\S"
)
#: a line that is a date or time stamp (with at most a few words around it)
DATE_RE = re.compile(
    r"\b(?:\d{1,2}[./-]\d{1,2}[./-](?:19|20)?\d\d|(?:19|20)\d\d[./-]\d{1,2}[./-]\d{1,2}|"
    r"(?:" + _MONTHS + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+(?:19|20)\d\d|\d{1,2}\.?\s+(?:" + _MONTHS + r")\.?,?\s+(?:19|20)\d\d|"
    r"\d{1,2}:\d\d\s*(?:[ap]\.?m\.?|uhr|h)?|\d+\s+(?:minutes?|hours?|days?|weeks?|months?|years?)\s+ago|"
    r"(?:19|20)\d\d年\d{1,2}月\d{1,2}日)",
    re.IGNORECASE,
)
#: headers of reader-comment threads: a count of comments ("20 Responses to ...", "12 Kommentare"),
#: an invitation ("Leave a Reply") or the header word alone ("Comments", "Kommentare (12)")
_COMMENT_WORDS = (
    r"comments|responses|replies|reactions|kommentare|leserkommentare|commentaires|comentarios|commenti|"
    r"coment[aá]rios|reacties|kommentarer|komentarze|комментарии|yorumlar|评论|留言|コメント|댓글"
)
COMMENTS_RE = re.compile(
    r"^\W*(?:\d+\s+(?:" + _COMMENT_WORDS + r"|comment|response|reply|kommentar|commentaire|comentario|commento)\b|"
    r"(?:responses?|comments?) (?:to|on)\b|leave a (?:reply|comment)|post a comment|add (?:a|your) comment|"
    r"join the (?:discussion|conversation)|reader comments|kommentieren|r[ée]agir|"
    r"(?:" + _COMMENT_WORDS + r")\W*\d*\W*$)"
)

#: the kinds, in the order of ``line_kinds``'s result
KINDS = ("prompt", "whole_prompt", "label", "counter", "copyright", "credit", "byline", "dateline", "comments_header")


def line_kinds(text: str) -> tuple[float, ...]:
    """One 0/1 value per kind in ``KINDS`` for a paragraph's text (all 0 for long paragraphs)."""
    if len(text) > MAX_LINE:
        return (0.0,) * len(KINDS)
    line = text.lower().strip()
    words = line.count(" ") + 1
    date = DATE_RE.search(line)
    return (
        1.0 if words <= 10 and PROMPT_RE.match(line) else 0.0,
        1.0 if words <= 6 and WHOLE_PROMPT_RE.match(line) else 0.0,
        1.0 if LABEL_RE.match(line) else 0.0,
        1.0 if COUNTER_RE.match(line) else 0.0,
        1.0 if COPYRIGHT_RE.search(line) else 0.0,
        1.0 if CREDIT_RE.match(line) else 0.0,
        1.0 if words <= 12 and BYLINE_RE.match(line) else 0.0,
        1.0 if date is not None and words <= 10 else 0.0,
        1.0 if words <= 8 and COMMENTS_RE.match(line) else 0.0,
    )

# --- page kinds (for the article probability) ---------------------------------------------------------

#: titles of service pages that are prose but never articles: privacy, imprint, terms, cookies,
#: contact, about, sign-in, search results, errors
SERVICE_TITLE_RE = re.compile(
    r"privacy|data protection|imprint|impressum|datenschutz|nutzungsbedingungen|\bagb\b|terms (?:of|and)|"
    r"cookie|legal notice|disclaimer|mentions l[ée]gales|confidentialit[ée]|conditions g[ée]n[ée]rales|"
    r"aviso legal|privacidad|t[ée]rminos|informativa|note legali|privacybeleid|algemene voorwaarden|colofon|"
    r"contact us|kontakt|about us|[üu]ber uns|qui sommes|qui[ée]nes somos|chi siamo|sitemap|site map|"
    r"log ?in|sign ?in|sign ?up|register|anmelden|registrieren|connexion|iniciar sesi[oó]n|"
    r"search results|suchergebnisse|r[ée]sultats de recherche|resultados de (?:la )?b[uú]squeda|"
    r"page not found|not found|\b404\b|seite nicht gefunden|page introuvable|"
    r"隐私|免责|关于我们|联系我们|プライバシー|利用規約|会社概要|개인정보|이용약관",
    re.IGNORECASE,
)
#: shop prompts on product and category pages
SHOP_RE = re.compile(
    r"add to (?:cart|bag|basket|wishlist)|buy now|in stock|out of stock|free shipping|free delivery|"
    r"warenkorb|jetzt kaufen|lieferzeit|versandkostenfrei|ajouter au panier|en stock|livraison gratuite|"
    r"a[ñn]adir al carrito|env[ií]o gratis|aggiungi al carrello|adicionar ao carrinho|in winkelwagen|"
    r"dodaj do koszyka|в корзину|加入购物车|カートに入れる|장바구니",
    re.IGNORECASE,
)
#: prices: a currency sign or code beside an amount
PRICE_RE = re.compile(
    r"(?:[$€£¥₹₩]|\b(?:usd|eur|gbp|chf|rs\.?|r\$))\s?\d[\d.,]*|\d[\d.,]*\s?(?:€|£|\b(?:eur|usd|kr|zł|руб|chf)\b|₽|円|元)",
    re.IGNORECASE,
)
