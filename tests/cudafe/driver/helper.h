// tests/cudafe/driver/helper.h: functions of helper.cpp (C++) and helper_c.c (C).
#ifdef __cplusplus
extern "C" {
#endif
int c_value(int i);
#ifdef __cplusplus
}
int helper_value(int i);
#endif
