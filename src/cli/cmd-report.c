/* ocrec report — not implemented yet (its issue is open). */
#include <string.h>

#include "cli/cli.h"

int cmd_report(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: ocrec report ...\n");
		return 0;
	}
	return cli_not_yet("report");
}
