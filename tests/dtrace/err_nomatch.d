/* STATUS: 2 */
syscall::no_such_syscall:entry
{
}
