#include "commandregistry.h"

std::vector<std::unique_ptr<Command>> CommandRegistry::all()
{
    std::vector<std::unique_ptr<Command>> commands;
    // commands.push_back(std::make_unique<SomeCommand>());
    return commands;
}
