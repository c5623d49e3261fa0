"""Lines that are page furniture in any article: share, follow, subscribe and advertisement prompts,
lone labels, gallery counters, copyright, credit, byline and date lines, and comment-thread headers.

Each pattern describes a *kind of line*; the phrases come from the multilingual table in ``phrases``
(about thirty languages) and none names a site. They are matched against short paragraphs only (a
long paragraph is prose whatever words it holds) and become features of the paragraph model, which
weighs them against everything else it knows about the paragraph.
"""

from __future__ import annotations

import re

from .phrases import COMMENT_INVITATIONS, COMMENT_WORDS, CREDITS, LABELS, PROMPTS, alternation

#: paragraphs longer than this (in characters) are never tested against the line patterns
MAX_LINE = 160

_MONTHS = (
    "jan(?:uary|uar|vier|eiro)?|feb(?:ruary|ruar)?|f[ée]v(?:rier)?|fev(?:ereiro)?|m[aä]r(?:ch|z|s|zo|ço)?|"
    "apr(?:il)?|avr(?:il)?|abr(?:il)?|may|mai|mayo|maio|maggio|jun[ei]?|juin|junio|giugno|jul[iy]?|juil(?:let)?|"
    "julio|luglio|aug(?:ust)?|ao[uû]t|agosto|sep(?:t(?:ember|embre)?)?|set(?:embro|tembre)?|oct(?:ober|obre)?|"
    "okt(?:ober)?|out(?:ubro)?|ott(?:obre)?|nov(?:ember|embre|iembre)?|dec(?:ember)?|d[ée]c(?:embre)?|"
    "dez(?:ember|embro)?|dic(?:iembre|embre)?"
)

#: a phrase ends where a word does, or anywhere in scripts written without spaces
_END = r"(?=\W|$|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])"
#: a short line that starts with a prompt (a feature: "Share prices fell" starts so too)
PROMPT_RE = re.compile(r"^\W*(?:" + alternation(PROMPTS) + r")" + _END)
#: a line that is nothing but a prompt ("Share this story", "Advertisement", "» Read more", "Reply")
WHOLE_PROMPT_RE = re.compile(r"^\W*(?:" + alternation(PROMPTS) + r")[\W\d]*$")
#: a lone label: a tag or topic list's heading, a media label, a reading time, a continuation note
LABEL_RE = re.compile(r"^\W*(?:" + alternation(LABELS) + r")\W*$")
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
#: picture credits ("Photo: Jane Doe", "Foto: Redaktion", "写真：本紙記者", "(Photo by ...)")
CREDIT_RE = re.compile(
    r"^\W*(?:(?:" + alternation(CREDITS) + r")(?: by| von| de| di| par)?\s*[:/|：=]|\(?(?:photo|image|foto|picture)s? "
    r"(?:by|courtesy|credit)\b)"
)
#: author lines ("By Jane Doe", "Von Max Muster", "Par ...", "Posted by ...")
BYLINE_RE = re.compile(
    r"^\W*(?:by|von|par|por|di|door|av|af|przez|от|yazan|written by|posted by|published by|reporting by|"
    r"words by|story by|text|texto|author|autor|auteur|autore|автор)\s*:?\s+\S"
)
#: a line that is a date or time stamp (with at most a few words around it)
DATE_RE = re.compile(
    r"\b(?:\d{1,2}[./-]\d{1,2}[./-](?:19|20)?\d\d|(?:19|20)\d\d[./-]\d{1,2}[./-]\d{1,2}|"
    r"(?:"
    + _MONTHS
    + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+(?:19|20)\d\d|\d{1,2}\.?\s+(?:de\s+)?(?:"
    + _MONTHS
    + r")\.?,?\s+(?:de\s+)?(?:19|20)\d\d|"
    r"\d{1,2}:\d\d\s*(?:[ap]\.?m\.?|uhr|h)?|\d+\s+(?:minutes?|hours?|days?|weeks?|months?|years?)\s+ago|"
    r"(?:19|20)\d\d年\d{1,2}月\d{1,2}日)",
)  # lower-case, like the lines it reads (IGNORECASE would make every search several times slower)
#: headers of reader-comment threads: a count of comments ("20 Responses to ...", "12 Kommentare"),
#: an invitation ("Leave a Reply") or the header word alone ("Comments", "Kommentare (12)")
COMMENTS_RE = re.compile(
    r"^\W*(?:\d+\s+(?:" + alternation(COMMENT_WORDS) + r"|comment|response|reply|kommentar|commentaire|comentario|"
    r"commento)\b|(?:" + alternation(COMMENT_INVITATIONS) + r")|(?:" + alternation(COMMENT_WORDS) + r")\W*\d*\W*$)"
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
#: shop prompts on product and category pages, in lower-cased text
SHOP_RE = re.compile(
    r"add to (?:cart|bag|basket|wishlist)|buy now|in stock|out of stock|free shipping|free delivery|"
    r"warenkorb|jetzt kaufen|lieferzeit|versandkostenfrei|ajouter au panier|en stock|livraison gratuite|"
    r"a[ñn]adir al carrito|env[ií]o gratis|aggiungi al carrello|adicionar ao carrinho|in winkelwagen|"
    r"dodaj do koszyka|в корзину|加入购物车|カートに入れる|장바구니",
)
#: prices: a currency sign or code beside an amount, in lower-cased text
PRICE_RE = re.compile(
    r"(?:[$€£¥₹₩]|\b(?:usd|eur|gbp|chf|rs\.?|r\$))\s?\d[\d.,]*|\d[\d.,]*\s?(?:€|£|\b(?:eur|usd|kr|zł|руб|chf)\b|₽|円|元)",
)
#: booking, quote and trial prompts of service and landing pages, in lower-cased text: what a business
#: asks a visitor to do (an article asks to share, follow or subscribe: ``PROMPTS``)
BOOKING_RE = re.compile(
    r"book (?:now|online|today|an appointment|a (?:call|demo|consultation|visit|tour|session))|"
    r"(?:get|request) (?:a |your )?(?:free )?(?:quote|estimate|demo|consultation|callback|proposal)|"
    r"free (?:quote|estimate|consultation|trial)|schedule (?:a |an |your )?(?:call|demo|consultation|appointment)|"
    r"call (?:us )?(?:now|today)|contact us today|start (?:your |a )?free trial|request (?:a )?call ?back|"
    r"termin (?:vereinbaren|buchen)|angebot anfordern|jetzt (?:anfragen|buchen)|kostenlos testen|"
    r"demander un devis|devis gratuit|prendre rendez-vous|solicitar presupuesto|pedir cita|richiedi (?:un )?preventivo",
)
