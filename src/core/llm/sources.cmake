# The LLM client layer (DESIGN.md §7): endpoints, the chat client, roles -> models, costs, call records.
find_package(Qt6Keychain REQUIRED)
target_link_libraries(accelopt_core PUBLIC Qt6Keychain::Qt6Keychain)
target_sources(accelopt_core PRIVATE
  llm/agentclients.cpp llm/agentclients.h
  llm/agentrole.cpp llm/agentrole.h
  llm/apikeystore.cpp llm/apikeystore.h
  llm/chatclient.cpp llm/chatclient.h
  llm/chatmessage.h
  llm/chatreply.h
  llm/chatrequest.h
  llm/costledger.cpp llm/costledger.h
  llm/endpoint.cpp llm/endpoint.h
  llm/endpointpresets.cpp llm/endpointpresets.h
  llm/llmcallrecord.h
  llm/llmcallrecorder.h
  llm/llmconfig.cpp llm/llmconfig.h
  llm/llmconfigaccess.cpp llm/llmconfigaccess.h
  llm/memorycallrecorder.cpp llm/memorycallrecorder.h
  llm/modelroster.cpp llm/modelroster.h
  llm/pricetable.cpp llm/pricetable.h
  llm/replycaps.cpp llm/replycaps.h
  llm/retrypolicy.cpp llm/retrypolicy.h
  llm/ssedecoder.cpp llm/ssedecoder.h
  llm/tokenusage.h)
