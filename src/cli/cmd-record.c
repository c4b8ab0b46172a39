/* ocrec record — not implemented yet (its issue is open). */
#include <string.h>

#include "cli/cli.h"

int cmd_record(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: ocrec record ...\n");
		return 0;
	}
	return cli_not_yet("record");
}
