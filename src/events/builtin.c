/* builtin.c — the built-in architectural event table (events/intel-architectural.json), linked
 * into the binary so that resolution works offline, from any directory and
 * before any download, without depending on where ocrec is installed. */
#include "events/ev-internal.h"

__asm__(".section .rodata\n"
	".globl ocrec_builtin_events\n"
	".type ocrec_builtin_events, @object\n"
	"ocrec_builtin_events:\n"
	".incbin \"events/" BUILTIN_EVENTS_NAME "\"\n"
	".byte 0\n"
	".size ocrec_builtin_events, . - ocrec_builtin_events\n"
	".previous\n");
