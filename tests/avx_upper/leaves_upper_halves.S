/* A function that uses a ymm register and returns without vzeroupper:
 * check.sh must report it (the ctest entry expects it to fail). */
    .text
    .globl heft_avx_check_sample
    .type heft_avx_check_sample, @function
heft_avx_check_sample:
    vxorpd %ymm0, %ymm0, %ymm0
    ret
    .size heft_avx_check_sample, .-heft_avx_check_sample
    .section .note.GNU-stack,"",@progbits
