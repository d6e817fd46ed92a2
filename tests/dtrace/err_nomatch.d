/* STATUS: 1 */
syscall::no_such_syscall:entry
{
}
