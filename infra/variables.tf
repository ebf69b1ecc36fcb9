variable "region" {
  description = "Region of the bucket, the registry and the functions (s.yaml's ENGRAM_REGION)."
  type        = string
  default     = "ap-southeast-1"
}

variable "bucket_name" {
  description = "OSS bucket that holds every tenant's snapshot generations (globally unique)."
  type        = string
}

variable "prefix" {
  description = "Key prefix of the tenant stores inside the bucket (s.yaml's ENGRAM_PREFIX)."
  type        = string
  default     = "engram"
}

variable "cold_after_days" {
  description = "Generations untouched this long move to Infrequent Access (dormant tenants, kept old generations)."
  type        = number
  default     = 30
}

variable "acr_namespace" {
  description = "Container Registry namespace for the function image."
  type        = string
  default     = "engram"
}

variable "acr_repository" {
  description = "Container Registry repository for the function image."
  type        = string
  default     = "engram"
}

variable "role_name" {
  description = "RAM role the three functions run as."
  type        = string
  default     = "engram-functions"
}

variable "function_names" {
  description = "The functions s.yaml creates; jobs is the one the timer's fan-out invokes asynchronously."
  type = object({
    chat        = string
    memories    = string
    consolidate = string
    jobs        = string
  })
  default = {
    chat        = "engram-chat"
    memories    = "engram-memories"
    consolidate = "engram-consolidate"
    jobs        = "engram-jobs"
  }
}

variable "log_project" {
  description = "SLS project of the functions' logs (globally unique, like the bucket)."
  type        = string
}

variable "log_retention_days" {
  description = "How long function logs are kept."
  type        = number
  default     = 30
}

variable "alarm_contact_group" {
  description = "CloudMonitor contact group alarms go to (create it in the console); empty: no alarms."
  type        = string
  default     = ""
}

variable "custom_domain" {
  description = "Your own ICP-filed domain for the API and the board (CNAME to FC first); empty: none."
  type        = string
  default     = ""
}

variable "domain_certificate" {
  description = "PEM certificate chain for HTTPS on custom_domain; empty: HTTP only."
  type        = string
  default     = ""
  sensitive   = true
}

variable "domain_private_key" {
  description = "PEM private key of domain_certificate."
  type        = string
  default     = ""
  sensitive   = true
}
