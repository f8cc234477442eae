// SPDX-License-Identifier: BSD-3-Clause
// cxx_header.cpp — mbgcm.h used from C++ (built by test/pkg/cxx_test.sh with g++ -std=c++11
// and -std=c++17, -Wall -Wextra -Werror and stricter warnings).
//
// Checks at compile time that struct mbgcm_key keeps its ABI shape in C++ (64-byte alignment,
// MBGCM_KEY_SIZE bytes, also as a member and in arrays) and that the status codes are usable
// as integral constants; at run time that the calls link with C linkage and encrypt
// McGrew-Viega test case 2 (AES-128, zero key, zero IV, one zero block) correctly.
#include <mbgcm.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

static_assert(alignof(mbgcm_key) == 64, "mbgcm_key must be 64-byte aligned in C++");
static_assert(sizeof(mbgcm_key) == MBGCM_KEY_SIZE, "mbgcm_key size must be MBGCM_KEY_SIZE");
static_assert(sizeof(mbgcm_key[3]) == 3 * MBGCM_KEY_SIZE, "no padding between array elements");

struct session {            // a key embedded in a user struct keeps its alignment
    char tag;
    mbgcm_key key;
};
static_assert(offsetof(session, key) % 64 == 0, "embedded mbgcm_key offset is 64-aligned");
static_assert(alignof(session) == 64, "alignment propagates to the enclosing struct");

static_assert(MBGCM_OK == 0 && MBGCM_ERR_AUTH == 1 && MBGCM_PENDING == 9, "status ABI values");

namespace {

const unsigned char kWantCt[16] = {0x03, 0x88, 0xda, 0xce, 0x60, 0xb6, 0xa3, 0x92,
                                   0xf3, 0x28, 0xc2, 0xb9, 0x71, 0xb2, 0xfe, 0x78};
const unsigned char kWantTag[16] = {0xab, 0x6e, 0x47, 0xd4, 0x2c, 0xec, 0x13, 0xbd,
                                    0xf5, 0x3a, 0x67, 0xb2, 0x12, 0x57, 0xbd, 0xdf};

// The entry points have C linkage and the documented types.
int (*const encrypt_fn)(const mbgcm_key *, const void *, std::size_t, const void *, std::size_t,
                        const void *, std::size_t, void *, void *, std::size_t) = &mbgcm_encrypt;

}  // namespace

int main()
{
    static session s;  // static storage: alignment from the type, not from the stack
    mbgcm_key local;   // automatic storage
    const unsigned char raw[16] = {};
    const unsigned char iv[12] = {};
    const unsigned char pt[16] = {};
    unsigned char ct[16] = {};
    unsigned char tag[16] = {};
    unsigned char back[16] = {};
    int bad = 0;

    if (reinterpret_cast<std::uintptr_t>(&local) % 64 != 0 ||
        reinterpret_cast<std::uintptr_t>(&s.key) % 64 != 0) {
        std::fprintf(stderr, "cxx: mbgcm_key object not 64-byte aligned\n");
        return 1;
    }
    for (mbgcm_key *k : {&local, &s.key}) {
        if (mbgcm_key_init(k, raw, sizeof raw) != MBGCM_OK ||
            encrypt_fn(k, iv, sizeof iv, nullptr, 0, pt, sizeof pt, ct, tag, sizeof tag) !=
                MBGCM_OK ||
            std::memcmp(ct, kWantCt, sizeof ct) != 0 || std::memcmp(tag, kWantTag, sizeof tag) != 0 ||
            mbgcm_decrypt(k, iv, sizeof iv, nullptr, 0, ct, sizeof ct, back, tag, sizeof tag) !=
                MBGCM_OK ||
            std::memcmp(back, pt, sizeof pt) != 0) {
            std::fprintf(stderr, "cxx: test case 2 failed\n");
            bad = 1;
        }
        mbgcm_key_wipe(k);
    }
    if (bad) {
        return 1;
    }
    std::printf("cxx: OK (mbgcm %s, %s)\n", mbgcm_version(), mbgcm_strerror(MBGCM_OK));
    return 0;
}
