/* The application's pointers on shapes and on the world: set by the defs,
 * read back, changed, refused on invalid ids, and never read by the engine. */
#include <criterion/criterion.h>

#include "heft.h"

Test(user_data, shapes_and_the_world_carry_the_application_pointers) {
    int world_tag = 1, shape_tag = 2, other_tag = 3;
    heft_world_def wd = heft_default_world_def();
    cr_assert_null(wd.user_data);
    wd.user_data = &world_tag;
    heft_world *w = heft_world_create(&wd);
    cr_assert_eq(heft_world_user_data(w), &world_tag);
    cr_assert_eq(heft_world_set_user_data(w, &other_tag), HEFT_OK);
    cr_assert_eq(heft_world_user_data(w), &other_tag);
    cr_assert_eq(heft_world_set_user_data(NULL, &other_tag), HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_null(heft_world_user_data(NULL));

    heft_body_def bd = heft_default_body_def();
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    cr_assert_null(sd.user_data);
    sd.user_data = &shape_tag;
    heft_shape_id s = heft_create_shape(w, b, &sd);
    cr_assert(heft_shape_is_valid(w, s), "%s", heft_last_error());
    heft_shape_def plain_def = heft_default_shape_def();
    heft_shape_id plain = heft_create_shape(w, b, &plain_def);
    cr_assert_eq(heft_shape_user_data(w, s), &shape_tag);
    cr_assert_null(heft_shape_user_data(w, plain));
    heft_shape_def back;
    cr_assert_eq(heft_shape_get_def(w, s, &back), HEFT_OK);
    cr_assert_eq(back.user_data, &shape_tag);
    cr_assert_eq(heft_shape_set_user_data(w, s, &other_tag), HEFT_OK);
    cr_assert_eq(heft_shape_user_data(w, s), &other_tag);
    /* the engine steps on without looking at them */
    for (int i = 0; i < 10; ++i) {
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
    }
    cr_assert_eq(heft_shape_user_data(w, s), &other_tag);
    cr_assert_eq(heft_world_user_data(w), &other_tag);
    /* a stale id: refused, nothing changed */
    heft_shape_id stale = s;
    stale.generation++;
    cr_assert_eq(heft_shape_set_user_data(w, stale, &world_tag), HEFT_ERROR_INVALID_ID);
    cr_assert_str_neq(heft_last_error(), "");
    cr_assert_null(heft_shape_user_data(w, stale));
    cr_assert_eq(heft_shape_user_data(w, s), &other_tag);
    heft_destroy_shape(w, s);
    cr_assert_null(heft_shape_user_data(w, s));
    heft_world_destroy(w);
}
