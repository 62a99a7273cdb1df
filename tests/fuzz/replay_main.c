/* Replays files through a libFuzzer target without libFuzzer, so that the
 * committed corpus and every kept finding run as a normal ctest test under
 * any compiler: fuzz_replay_TARGET FILE_OR_DIRECTORY... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *data = malloc(cap);
    size_t got;
    while (data != NULL && (got = fread(data + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *bigger = realloc(data, cap * 2);
            if (bigger == NULL) {
                free(data);
                data = NULL;
                break;
            }
            data = bigger;
            cap *= 2;
        }
    }
    const int bad = ferror(f);
    fclose(f);
    if (data == NULL || bad) {
        free(data);
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 1;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* a directory's regular files in name order (the same order on every run) */
static int replay_directory(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "replay: cannot open directory %s\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            char **bigger = realloc(names, cap * sizeof *names);
            if (bigger == NULL)
                abort();
            names = bigger;
        }
        names[count] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (names[count] == NULL)
            abort();
        sprintf(names[count], "%s/%s", dir, e->d_name);
        ++count;
    }
    closedir(d);
    if (count > 0)
        qsort(names, count, sizeof *names, compare_names);
    int replayed = 0;
    for (size_t i = 0; i < count; ++i) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(names[i]) < 0)
                return -1;
            ++replayed;
        }
        free(names[i]);
    }
    free(names);
    return replayed;
}

int main(int argc, char **argv) {
    int total = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s does not exist\n", argv[i]);
            return 1;
        }
        const int n = S_ISDIR(st.st_mode) ? replay_directory(argv[i]) : replay_file(argv[i]);
        if (n < 0)
            return 1;
        total += n;
    }
    printf("replayed %d inputs\n", total);
    /* an empty replay proves nothing: a moved corpus must not pass silently */
    return total > 0 ? 0 : 1;
}
