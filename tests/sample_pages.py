"""Small hand-written pages shared by the method tests: an article among menus and related links, a
page that is only a list of links, and short articles in German, Chinese and Japanese."""

from __future__ import annotations

SITE = "https://www.example.com"

ENGLISH_PARAGRAPHS = [
    "The city council met on Tuesday evening to discuss the future of the old railway station, which has "
    "been empty for more than ten years and is now in urgent need of repair.",
    "Several residents told the council that they would like the building to become a library or a market "
    "hall, because there is no other public space of that size in the neighbourhood.",
    "The mayor said that the town could not pay for the work on its own, but that she was talking to the "
    "regional government about a grant that might cover most of the cost.",
    "A final decision is expected in the spring, after the engineers have finished their report on the "
    "state of the roof and the foundations.",
]
MENU = ["Home", "Politics", "Business", "Sport", "Culture", "Weather", "Contact"]
RELATED = [
    "Council approves new budget for schools",
    "Bus routes to change from next month",
    "Museum reopens after two years of work",
    "Local team wins the regional cup final",
]

GERMAN_PARAGRAPHS = [
    "Der Stadtrat hat am Dienstag über die Zukunft des alten Bahnhofs beraten, der seit mehr als zehn "
    "Jahren leer steht und dringend renoviert werden muss.",
    "Viele Bürger wünschen sich, dass in dem Gebäude eine Bibliothek oder eine Markthalle entsteht, weil "
    "es in der Nachbarschaft keinen anderen öffentlichen Raum dieser Größe gibt.",
    "Die Bürgermeisterin sagte, dass die Stadt die Arbeiten nicht allein bezahlen könne, aber sie sei mit "
    "der Landesregierung über einen Zuschuss im Gespräch, der den größten Teil der Kosten decken könnte.",
    "Eine Entscheidung wird im Frühjahr erwartet, nachdem die Ingenieure ihren Bericht über den Zustand "
    "des Daches und der Fundamente vorgelegt haben.",
]
GERMAN_MENU = ["Startseite", "Politik", "Wirtschaft", "Sport", "Kultur", "Wetter", "Kontakt"]

CHINESE_PARAGRAPHS = [
    "市议会星期二晚上开会，讨论了老火车站的未来。这座建筑已经空置了十多年，现在急需修缮。",
    "许多居民对议会说，他们希望这座建筑成为图书馆或者市场，因为在这个社区里没有其他这么大的公共空间。",
    "市长说，市政府没有能力独自承担这项工程的费用，但是她正在和地区政府商谈一笔补助金，这笔钱可能会支付大部分的费用。",
    "最后的决定预计在春天作出，那时工程师们将完成关于屋顶和地基状况的报告，我们也会及时报道。",
]
CHINESE_MENU = ["首页", "新闻", "财经", "体育", "文化", "天气"]

JAPANESE_PARAGRAPHS = [
    "市議会は火曜日の夜に会合を開き、古い駅舎の将来について話し合った。この建物は十年以上も空き家のままで、今は早急な修理が必要だ。",
    "多くの住民は、この建物を図書館や市場にしてほしいと議会に伝えた。近所にはこれほど大きな公共の場所がほかにないからだ。",
    "市長は、市だけでは工事の費用を払うことができないが、費用の大部分をまかなう補助金について県と話し合っていると述べた。",
]


def article_page(
    paragraphs: list[str],
    menu: list[str] = MENU,
    related: list[str] = RELATED,
    lang: str | None = None,
    title: str = "Old station",
) -> str:
    """An article with a navigation menu before it and related links and a footer after it."""
    html_lang = f' lang="{lang}"' if lang else ""
    menu_items = "".join(f'<li><a href="{SITE}/{item.lower()}/">{item}</a></li>' for item in menu)
    related_items = "".join(
        f'<li><a href="{SITE}/news/2024/05/story-{i}.html">{item}</a></li>' for i, item in enumerate(related)
    )
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<html{html_lang}><head><title>{title}</title></head><body>"
        f'<div class="header"><ul class="menu">{menu_items}</ul></div>'
        f'<div class="main"><div class="article"><h1>{title}</h1>{body}</div>'
        f'<div class="related"><h3>Related</h3><ul>{related_items}</ul></div></div>'
        f'<div class="footer"><a href="{SITE}/about/">About us</a> <a href="{SITE}/contact/">Contact</a>'
        " © 2024 Town News</div>"
        "</body></html>"
    )


def link_list_page(count: int = 40) -> str:
    """A section page: a menu, then many teaser links, each with a date; little text outside links."""
    menu_items = "".join(
        f'<li class="nav-item"><a class="nav-link" href="{SITE}/{item.lower()}/">{item}</a></li>' for item in MENU
    )
    items = "".join(
        f'<li class="teaser"><a class="teaser-link" href="{SITE}/news/2024/05/story-{i}.html">'
        f'{RELATED[i % len(RELATED)]}, part {i}</a> <span class="date">{1 + i % 28} May</span></li>'
        for i in range(count)
    )
    return (
        "<html><head><title>Latest news</title></head><body>"
        f'<ul class="menu">{menu_items}</ul><h2>Latest</h2><ul class="teasers">{items}</ul>'
        '<div class="footer">© 2024 Town News</div></body></html>'
    )


def assert_selects(text: str, paragraphs: list[str], boilerplate: list[str]) -> None:
    """Every paragraph is a line of ``text`` and none of the boilerplate items is in it."""
    lines = text.splitlines()
    assert [p for p in paragraphs if p not in lines] == [], text
    assert [item for item in boilerplate if item in text] == [], text
