"""XXH3-64 (seed 0) in plain Python, to forge table checksums.

Transcribed from the xxhash-rust crate's const_xxh3.rs; the self-test in
attack.py checks it against a table tabula wrote.
"""

M = (1 << 64) - 1
P32_1, P32_2, P32_3 = 0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D
P64_1, P64_2, P64_3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
P64_4, P64_5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e"
)
STRIPE, RATE, ACC_NB = 64, 8, 8


def _u64(b, i):
    return int.from_bytes(b[i : i + 8], "little")


def _u32(b, i):
    return int.from_bytes(b[i : i + 4], "little")


def _fold(a, b):
    p = a * b
    return (p & M) ^ (p >> 64)


def _avalanche(v):
    v ^= v >> 37
    v = (v * 0x165667919E3779F9) & M
    return v ^ (v >> 32)


def _avalanche64(v):
    v ^= v >> 33
    v = (v * P64_2) & M
    v ^= v >> 29
    v = (v * P64_3) & M
    return v ^ (v >> 32)


def _rotl(v, r):
    return ((v << r) | (v >> (64 - r))) & M


def _mix(data, i, s):
    return _fold(_u64(data, i) ^ _u64(SECRET, s), _u64(data, i + 8) ^ _u64(SECRET, s + 8))


def _short(data):
    n = len(data)
    if n > 8:
        lo = _u64(data, 0) ^ (_u64(SECRET, 24) ^ _u64(SECRET, 32))
        hi = _u64(data, n - 8) ^ (_u64(SECRET, 40) ^ _u64(SECRET, 48))
        swapped = int.from_bytes(lo.to_bytes(8, "little"), "big")
        return _avalanche((n + swapped + hi + _fold(lo, hi)) & M)
    if n >= 4:
        v = (_u32(data, n - 4) + (_u32(data, 0) << 32)) & M
        v ^= _u64(SECRET, 8) ^ _u64(SECRET, 16)
        v ^= _rotl(v, 49) ^ _rotl(v, 24)
        v = (v * 0x9FB21C651E98DF25) & M
        v ^= (v >> 35) + n
        v = (v * 0x9FB21C651E98DF25) & M
        return v ^ (v >> 28)
    if n > 0:
        combo = (data[0] << 16) | (data[n >> 1] << 24) | data[n - 1] | (n << 8)
        return _avalanche64(combo ^ (_u32(SECRET, 0) ^ _u32(SECRET, 4)))
    return _avalanche64(_u64(SECRET, 56) ^ _u64(SECRET, 64))


def _upto128(data):
    n = len(data)
    acc = (n * P64_1) & M
    if n > 32:
        if n > 64:
            if n > 96:
                acc += _mix(data, 48, 96) + _mix(data, n - 64, 112)
            acc += _mix(data, 32, 64) + _mix(data, n - 48, 80)
        acc += _mix(data, 16, 32) + _mix(data, n - 32, 48)
    acc += _mix(data, 0, 0) + _mix(data, n - 16, 16)
    return _avalanche(acc & M)


def _upto240(data):
    n = len(data)
    acc = (n * P64_1) & M
    for i in range(8):
        acc = (acc + _mix(data, 16 * i, 16 * i)) & M
    acc = _avalanche(acc)
    for i in range(8, n // 16):
        acc = (acc + _mix(data, 16 * i, 16 * (i - 8) + 3)) & M
    acc = (acc + _mix(data, n - 16, 136 - 17)) & M
    return _avalanche(acc)


def _accumulate(acc, data, i, s):
    for k in range(ACC_NB):
        v = _u64(data, i + 8 * k)
        key = v ^ _u64(SECRET, s + 8 * k)
        acc[k ^ 1] = (acc[k ^ 1] + v) & M
        acc[k] = (acc[k] + (key & 0xFFFFFFFF) * (key >> 32)) & M


def _long(data):
    n = len(data)
    acc = [P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1]
    stripes = (len(SECRET) - STRIPE) // RATE
    block = STRIPE * stripes
    blocks = (n - 1) // block
    for b in range(blocks):
        for s in range(stripes):
            _accumulate(acc, data, b * block + s * STRIPE, s * RATE)
        for k in range(ACC_NB):
            v = acc[k] ^ (acc[k] >> 47) ^ _u64(SECRET, len(SECRET) - STRIPE + 8 * k)
            acc[k] = (v * P32_1) & M
    for s in range(((n - 1) - block * blocks) // STRIPE):
        _accumulate(acc, data, blocks * block + s * STRIPE, s * RATE)
    _accumulate(acc, data, n - STRIPE, len(SECRET) - STRIPE - 7)
    result = (n * P64_1) & M
    for k in range(4):
        result += _fold(acc[2 * k] ^ _u64(SECRET, 11 + 16 * k), acc[2 * k + 1] ^ _u64(SECRET, 11 + 16 * k + 8))
    return _avalanche(result & M)


def xxh3_64(data: bytes) -> int:
    """The XXH3-64 hash of data with seed 0."""
    if len(data) <= 16:
        return _short(data)
    if len(data) <= 128:
        return _upto128(data)
    if len(data) <= 240:
        return _upto240(data)
    return _long(data)
