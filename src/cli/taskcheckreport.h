#pragma once

#include "search/taskcheck.h"

class QTextStream;

// How the CLI prints a task check: one line per check, then the figures it measured.
class TaskCheckReport
{
public:
    static void print(QTextStream &out, const TaskCheck::Result &result);
};
