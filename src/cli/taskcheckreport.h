#pragma once

#include "search/taskcheck.h"

class QTextStream;

// How the CLI runs a task check (on this machine: the check needs the task's files) and prints it: one line
// per check, then the figures it measured.
class TaskCheckReport
{
public:
    // Waits for the check of the task folder; a passed check stamps the folder (TaskCheckStamp).
    static TaskCheck::Result run(const QString &folder, const QString &kernel = {}, const QString &function = {});
    static void print(QTextStream &out, const TaskCheck::Result &result);
};
