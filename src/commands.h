// SPDX-License-Identifier: GPL-2.0-only
/* commands — the entry point of every `sonde <command>`. Each receives its
 * own argv (argv[0] is the command name) and returns the exit status. */
#ifndef SONDE_COMMANDS_H
#define SONDE_COMMANDS_H

int cmd_hot(int argc, char **argv);
int cmd_prof(int argc, char **argv);
int cmd_dtrace(int argc, char **argv);
int cmd_kptrace(int argc, char **argv);
int cmd_ktrace(int argc, char **argv);
int cmd_kdump(int argc, char **argv);
int cmd_agent(int argc, char **argv);

#endif
