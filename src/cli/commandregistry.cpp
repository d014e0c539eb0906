#include "commandregistry.h"

#include "benchcommand.h"
#include "calibrationcommand.h"
#include "comparecommand.h"
#include "exportcommand.h"
#include "hostscommand.h"
#include "mcpcommand.h"
#include "memorycommand.h"
#include "modelscommand.h"
#include "optimizecommand.h"
#include "portcommand.h"
#include "profilecommand.h"
#include "resumecommand.h"
#include "sessionscommand.h"
#include "studycommand.h"
#include "suitecommand.h"
#include "taskcommand.h"
#include "taskscommand.h"

std::vector<std::unique_ptr<Command>> CommandRegistry::all()
{
    std::vector<std::unique_ptr<Command>> commands;
    commands.push_back(std::make_unique<BenchCommand>());
    commands.push_back(std::make_unique<SuiteCommand>());
    commands.push_back(std::make_unique<OptimizeCommand>());
    commands.push_back(std::make_unique<ResumeCommand>());
    commands.push_back(std::make_unique<HostsCommand>());
    commands.push_back(std::make_unique<ModelsCommand>());
    commands.push_back(std::make_unique<MemoryCommand>());
    commands.push_back(std::make_unique<SessionsCommand>());
    commands.push_back(std::make_unique<StudyCommand>());
    commands.push_back(std::make_unique<ExportCommand>());
    commands.push_back(std::make_unique<CompareCommand>());
    commands.push_back(std::make_unique<CalibrationCommand>());
    commands.push_back(std::make_unique<ProfileCommand>());
    commands.push_back(std::make_unique<PortCommand>());
    commands.push_back(std::make_unique<TaskCommand>());
    commands.push_back(std::make_unique<TasksCommand>());
    commands.push_back(std::make_unique<McpCommand>());
    return commands;
}
