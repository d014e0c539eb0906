#pragma once

#include "command.h"

#include <memory>
#include <vector>

// The list of subcommands `accelopt` knows. Adding a command is one line in commandregistry.cpp.
class CommandRegistry
{
public:
    static std::vector<std::unique_ptr<Command>> all();
};
