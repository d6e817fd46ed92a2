/* ARGS: -q */
/* strtok() as illumos: the first call with a string, the next ones with
 * NULL go on where the last stopped, across the clauses of one probe
 * firing; runs of delimiters are skipped; NULL when only delimiters
 * remain; each call may name other delimiters. */
BEGIN
{
	this->str = ",,,Carrots,,Barley,Oatmeal,,,Beans,";
}

BEGIN
/(this->field = strtok(this->str, ",")) == NULL/
{
	exit(1);
}

BEGIN
{
	printf("%s\n", this->field);
}

BEGIN
/(this->field = strtok(NULL, ",")) == NULL/
{
	exit(2);
}

BEGIN
{
	printf("%s\n", this->field);
}

BEGIN
/(this->field = strtok(NULL, ",")) != NULL/
{
	printf("%s\n", this->field);
	printf("%s\n", strtok(NULL, ","));
}

BEGIN
/strtok(NULL, ",") == NULL/
{
	printf("no more\n");
}

BEGIN
{
	printf("[%s] [%s]", strtok("a-b+c", "+-"), strtok(NULL, "+-"));
	printf(" [%s] %d", strtok(NULL, ""), strtok(NULL, "+-") == NULL);
	printf(" %d %d\n", strtok("", "+-") == NULL,
	    strtok(NULL, "+-") == NULL);
	printf("[%s] [%s]\n", strtok("/usr/lib/", "/"), strtok(NULL, "/"));
	exit(0);
}
