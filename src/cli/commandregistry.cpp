#include "commandregistry.h"

#include "benchcommand.h"
#include "hostscommand.h"
#include "memorycommand.h"
#include "modelscommand.h"
#include "sessionscommand.h"
#include "suitecommand.h"

std::vector<std::unique_ptr<Command>> CommandRegistry::all()
{
    std::vector<std::unique_ptr<Command>> commands;
    commands.push_back(std::make_unique<BenchCommand>());
    commands.push_back(std::make_unique<SuiteCommand>());
    commands.push_back(std::make_unique<HostsCommand>());
    commands.push_back(std::make_unique<ModelsCommand>());
    commands.push_back(std::make_unique<MemoryCommand>());
    commands.push_back(std::make_unique<SessionsCommand>());
    return commands;
}
