/* bench-collision: broad phase and narrowphase time per step for 1,000 and
 * 10,000 bodies (or the counts given), mixed shapes dropped in a grid onto
 * the ground and a height field, so that they land in touching piles.
 * Built with -DHEFT_BENCH=ON; prints one table (docs/collision.md); usage:
 * bench-collision [BODIES...] (1 to 1,000,000 each, at most 16). Uses the
 * library's private contact set for the split of the two phases. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli.h"
#include "world.h"

static const heft_vec3 rock[8] = {{-.3, -.25, -.2}, {.3, -.2, -.25}, {-.25, .3, -.2},
                                  {.25, .25, -.3},  {-.3, -.3, .25}, {.25, -.3, .3},
                                  {-.2, .25, .3},   {.3, .3, .2}};

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static heft_shape_def body_shape(int i) {
    heft_shape_def d = heft_default_shape_def();
    switch (i % 5) {
    case 0:
        d.type = HEFT_SHAPE_BOX;
        d.half_extents = heft_v3(0.3, 0.25, 0.2);
        break;
    case 1:
        d.radius = 0.3;
        break;
    case 2:
        d.type = HEFT_SHAPE_CAPSULE;
        d.radius = 0.15;
        d.half_length = 0.25;
        break;
    case 3:
        d.type = HEFT_SHAPE_CYLINDER;
        d.radius = 0.25;
        d.half_length = 0.2;
        break;
    default:
        d.type = HEFT_SHAPE_HULL;
        d.hull.points = rock;
        d.hull.count = 8;
        break;
    }
    return d;
}

static void run(int n, int steps, int measured) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    heft_body_id ground = heft_create_body(w, &gd);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    heft_create_shape(w, ground, &plane);
    int side = (int)ceil(sqrt(n / 4.0));
    /* a gently rolling height field under half of the grid */
    int hn = side + 2;
    double *heights = malloc(sizeof(double) * (size_t)hn * (size_t)hn);
    for (int j = 0; j < hn; ++j) {
        for (int i = 0; i < hn; ++i) {
            heights[j * hn + i] = 0.1 + 0.1 * sin(0.7 * i) * cos(0.5 * j);
        }
    }
    heft_shape_def field = heft_default_shape_def();
    field.type = HEFT_SHAPE_HEIGHT_FIELD;
    field.height_field.heights = heights;
    field.height_field.count_x = hn;
    field.height_field.count_y = hn;
    field.height_field.spacing_x = 0.5;
    field.height_field.spacing_y = 1.0;
    field.local_position = heft_v3(-1.0, -1.0, 0.0);
    heft_create_shape(w, ground, &field);
    free(heights);
    for (int i = 0; i < n; ++i) {
        int layer = i / (side * side), k = i % (side * side);
        heft_body_def bd = heft_default_body_def();
        bd.position = heft_v3(0.7 * (k % side), 0.7 * (k / side), 0.6 + 0.7 * layer);
        bd.orientation = heft_quat_axis_angle(heft_v3(1, 1, 0), 0.3 * i);
        heft_body_id b = heft_create_body(w, &bd);
        heft_shape_def d = body_shape(i);
        heft_create_shape(w, b, &d);
        heft_body_set_mass_from_shapes(w, b);
    }
    double broad = 0.0, narrow = 0.0, total = 0.0;
    long pairs = 0, contacts = 0;
    for (int s = 0; s < steps; ++s) {
        double t0 = cpu_ms();
        heft_world_step(w, 1.0 / 60.0);
        double t1 = cpu_ms();
        if (s >= steps - measured) {
            broad += w->contacts.time_broad_ms;
            narrow += w->contacts.time_narrow_ms;
            total += t1 - t0;
            pairs += w->contacts.pairs;
            contacts += w->contacts.count;
        }
    }
    printf("| %6d | %7ld | %8ld | %8.3f | %9.3f | %7.3f | %7.2f |\n", n, pairs / measured,
           contacts / measured, broad / measured, narrow / measured, total / measured,
           1e3 * narrow / measured / (double)(pairs / measured));
    fflush(stdout);
    heft_world_destroy(w);
}

int main(int argc, char **argv) {
    int steps = 180, measured = 60;
    int counts[16] = {1000, 10000}, count = 2;
    char err[256];
    if (argc > 1) {
        count = 0;
        for (int i = 1; i < argc; ++i) {
            /* the body counts, checked before any run (the world's arrays
             * are sized from them) */
            if (count == 16) {
                fprintf(stderr, "bench-collision: at most 16 body counts\n");
                return 2;
            }
            if (cli_int("bodies", argv[i], 1, 1000000, &counts[count++], err, sizeof err) != 0) {
                fprintf(stderr, "bench-collision: %s\n", err);
                return 2;
            }
        }
    }
    printf(
        "bench-collision: mixed boxes, spheres, capsules, cylinders and hulls dropped onto a plane "
        "and a "
        "height field; averages over steps %d..%d, h = 1/60 s, PGS; thread CPU time per step\n\n",
        steps - measured + 1, steps);
    printf("| bodies | pairs   | contacts | broad ms | narrow ms | step ms | us/pair |\n");
    printf("|-------:|--------:|---------:|---------:|----------:|--------:|--------:|\n");
    for (int i = 0; i < count; ++i) {
        run(counts[i], steps, measured);
    }
    if (cli_finish_output(stdout, "the standard output", err, sizeof err) != 0) {
        fprintf(stderr, "bench-collision: %s\n", err);
        return 1;
    }
    return 0;
}
